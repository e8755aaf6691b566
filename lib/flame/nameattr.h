#ifndef PROF_FLAME_NAMEATTR_H
#define PROF_FLAME_NAMEATTR_H
/*
 * Per-function frame attributes (flamegraph.pl --nameattr): a file of
 * lines "NAME<TAB>key=value<TAB>key=value...". "title" replaces the
 * frame's tooltip, "href" (and "target", default "_top") wraps the frame
 * in a link, any other key becomes an attribute of the frame's <g> (keys
 * must be XML names without a namespace prefix, not xml*, each once in a
 * line, so that the SVG stays well-formed; values are escaped).
 */
#include <stddef.h>
#include "core/intern.h"

/* The attributes of one name; NULL where the file gave none. */
struct prof_flame_attrs {
	char *title;		/* tooltip, raw (escaped when written, like names) */
	char *href;		/* link, XML-escaped */
	char *target;		/* link target, XML-escaped */
	char *gattrs;		/* ' key="value"...', escaped */
};

struct prof_flame_nameattr {
	struct prof_intern names;
	struct prof_flame_attrs *attrs;	/* name id -> attributes */
	size_t cap;
};

/*
 * Initialise a and load path into it (a line naming a function again
 * adds to or replaces its attributes). Returns 0, or -1 after reporting
 * "prog: path:line: what" for bad lines (the good ones are kept) or the
 * open failure; a must be released either way.
 */
int prof_flame_nameattr_load(struct prof_flame_nameattr *a, const char *path);

/* The attributes of name[0..len), or NULL if the file named it not. */
const struct prof_flame_attrs *prof_flame_nameattr_find(const struct prof_flame_nameattr *a,
							const char *name, size_t len);

void prof_flame_nameattr_release(struct prof_flame_nameattr *a);

#endif
