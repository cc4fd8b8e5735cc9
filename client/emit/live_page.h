/*
 * live_page.h - the live page (client/web/live.*), built into pmflame so
 * that every -o DIR site has it, and its one script, which emit_csp.c
 * hashes into the site's policy.
 */
#ifndef LIVE_PAGE_H
#define LIVE_PAGE_H

extern const char live_page_html[];
extern const char live_page_script[];

#endif
