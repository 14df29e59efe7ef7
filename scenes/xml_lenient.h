/* Raw '<' and '&' in attribute values, as SOFA's reader takes them (xml_lenient.c). */
#ifndef PF_SCENES_XML_LENIENT_H
#define PF_SCENES_XML_LENIENT_H

#include <stddef.h>

/* When text (n bytes) holds a '<', or a '&' starting no character or entity reference, inside a quoted attribute
 * value: *out (pf_malloc'ed, NUL-terminated, *out_n bytes) is the text with each escaped (&lt; &amp;), *line the
 * line of the first, and the count is returned. 0 (nothing to escape, *out NULL) or -1 (out of memory). */
int sc_xml_escape_attributes(const char *text, size_t n, char **out, size_t *out_n, int *line);

#endif
