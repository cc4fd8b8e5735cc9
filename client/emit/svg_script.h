/*
 * svg_script.h - the fixed style sheet and script of our flame graph SVGs.
 */
#ifndef SVG_SCRIPT_H
#define SVG_SCRIPT_H

extern const char svg_style[];
extern const char svg_script[];

#endif /* SVG_SCRIPT_H */
