/*
 * emit_csp.c - the Content-Security-Policy of our SVGs (see header).
 */
#include <stdio.h>
#include <string.h>
#include <openssl/evp.h>
#include "emit_csp.h"
#include "emit_heatmap.h"
#include "live_page.h"
#include "site_script.h"
#include "svg_script.h"

int
emit_csp_script_hash(const char *script, char *out, size_t len)
{
	unsigned char	md[EVP_MAX_MD_SIZE], b64[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
	unsigned int	mdlen = 0;
	EVP_MD_CTX	*ctx = EVP_MD_CTX_new();
	int		ok = ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) &&
			     EVP_DigestUpdate(ctx, "\n", 1) &&
			     EVP_DigestUpdate(ctx, script, strlen(script)) &&
			     EVP_DigestFinal_ex(ctx, md, &mdlen);

	EVP_MD_CTX_free(ctx);
	if (!ok)
		return -1;
	EVP_EncodeBlock(b64, md, (int)mdlen);
	return snprintf(out, len, "'sha256-%s'", b64) < (int)len ? 0 : -1;
}

int
emit_svg_csp(char *buf, size_t len)
{
	char	flame[80], heat[80], site[80], live[80];

	if (emit_csp_script_hash(svg_script, flame, sizeof(flame)) < 0 ||
	    emit_csp_script_hash(heatmap_script, heat, sizeof(heat)) < 0 ||
	    emit_csp_script_hash(site_filter_script, site, sizeof(site)) < 0 ||
	    emit_csp_script_hash(live_page_script, live, sizeof(live)) < 0)
		return -1;
	/* connect-src: live.html reads whichever pmproxy its URL names */
	return snprintf(buf, len, "default-src 'none'; script-src %s %s %s %s; "
			"style-src 'unsafe-inline'; img-src data:; connect-src *", flame, heat, site,
			live) < (int)len ? 0 : -1;
}
