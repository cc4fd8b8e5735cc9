/*
 * site_script.h - the fixed script of the site's index.html.
 */
#ifndef SITE_SCRIPT_H
#define SITE_SCRIPT_H

extern const char site_filter_script[];

#endif /* SITE_SCRIPT_H */
