/*
 * site_script.c - the one script of the site's index.html (site.c writes
 * the page).  It lives here, beside the SVGs' scripts, so that one policy
 * (emit_csp.c) names every script pmflame writes.
 */
#include "site_script.h"

/*
 * The filter: constant, no profile text.  Rows carry data-host,
 * data-profile and data-event; each <select> an option per distinct
 * value ("" = any).  Reads values, sets row.hidden and the count.
 */
const char site_filter_script[] =
"(function () {\n"
"\tvar keys = [\"host\", \"profile\", \"event\"];\n"
"\tvar rows = document.querySelectorAll(\"#profiles tbody tr\");\n"
"\tvar shown = document.getElementById(\"shown\");\n"
"\tfunction apply() {\n"
"\t\tvar n = 0;\n"
"\t\tArray.prototype.forEach.call(rows, function (row) {\n"
"\t\t\tvar ok = keys.every(function (k) {\n"
"\t\t\t\tvar want = document.getElementById(\"filter-\" + k).value;\n"
"\t\t\t\treturn want === \"\" || row.getAttribute(\"data-\" + k) === want;\n"
"\t\t\t});\n"
"\t\t\trow.hidden = !ok;\n"
"\t\t\tn += ok ? 1 : 0;\n"
"\t\t});\n"
"\t\tshown.textContent = String(n);\n"
"\t}\n"
"\tkeys.forEach(function (k) {\n"
"\t\tdocument.getElementById(\"filter-\" + k).addEventListener(\"change\", apply);\n"
"\t});\n"
"\tapply();\n"
"})();\n";
