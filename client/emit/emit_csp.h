/*
 * emit_csp.h - the Content-Security-Policy our SVG flame graphs, heat
 * maps and the site's index need (one policy, so a web server can send it
 * for the whole site): their own inline scripts (named by SHA-256, so an injected
 * one, inline or external, does not run), inline styles, data: images,
 * nothing else.
 *
 * Chromium ignores a policy delivered by <meta> outside an HTML <head>
 * ("The policy has been ignored"), so an SVG opened directly gets it only
 * as an HTTP header: the web server sends it (pmflame --csp prints it;
 * docs/pmflame.1 has an nginx line).  index.html carries its own <meta>.
 */
#ifndef EMIT_CSP_H
#define EMIT_CSP_H

#include <stddef.h>

/* The policy into buf (NUL-terminated); 0, or -1 when it does not fit or
 * hashing failed. */
int emit_svg_csp(char *buf, size_t len);

/* 'sha256-BASE64' (the CSP source) of a script element whose text is a
 * newline and then script: what every page of ours writes.  0 or -1. */
int emit_csp_script_hash(const char *script, char *out, size_t len);

#endif /* EMIT_CSP_H */
