/*
 * The account of naming (symbolize.h): how much of a recording's weight
 * fell in code named by symbols, by MiniDebugInfo, by its function's
 * start only (.eh_frame) or by nothing, per file, so that the tools can
 * say what could not be named and what would name it.
 */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "symbolize/internal.h"

static enum prof_named named_by(unsigned flags)
{
	if (flags & PROF_FRAME_UNKNOWN)
		return PROF_NAMED_NONE;
	if (flags & PROF_FRAME_FDE)
		return PROF_NAMED_FDE;
	if (flags & PROF_FRAME_CACHED)
		return PROF_NAMED_CACHE;
	if (flags & PROF_FRAME_MINIDEBUG)
		return PROF_NAMED_MINIDEBUG;
	if (flags & PROF_FRAME_GOPCLNTAB)
		return PROF_NAMED_GOPCLNTAB;
	if (flags & PROF_FRAME_DEBUGFILE)
		return PROF_NAMED_DEBUGFILE;
	return PROF_NAMED_SYMBOL;
}

void prof_symbolizer_account(struct prof_symbolizer *s, struct prof_addrspace *as,
			     uint64_t addr, unsigned flags, uint64_t weight)
{
	struct prof_frame f[16];
	size_t n = prof_symbolize(s, as, addr, flags, f, 16), mi;
	enum prof_named k;

	if (!n)
		return;
	k = named_by(f[n - 1].flags);
	s->named[k] += weight;
	if (!as || (flags & PROF_SYM_KERNEL))
		return;
	mi = prof_sym_map_index(as, (flags & PROF_SYM_RETURN) ? addr - 1 : addr);
	if (mi != (size_t)-1 && as->objs[mi] < s->nobjs)
		s->objs[as->objs[mi]]->named[k] += weight;
}

void prof_symbolizer_account_named_late(struct prof_symbolizer *s, uint64_t weight)
{
	if (weight > s->named[PROF_NAMED_NONE])
		weight = s->named[PROF_NAMED_NONE];
	s->named[PROF_NAMED_NONE] -= weight;
	s->named[PROF_NAMED_SYMBOL] += weight;
}

static int pct(uint64_t part, uint64_t total)
{
	return total ? (int)((part * 100 + total / 2) / total) : 0;
}

/*
 * Why o's file gave no names when it could not be opened: not "no
 * symbols" (installing debug symbols would not help), but where the tool
 * looked and what it found there.
 */
static const char *unopened(const struct prof_symbolizer *s, const struct elfobj *o, char *buf,
			    size_t n)
{
	char where[4200], couldnot[160];
	size_t len = strlen(o->path);

	if (o->why == PROF_SYM_GONE_NS) {
		snprintf(buf, n, "not opened: its process ran in another mount namespace whose root "
			 "%s could not keep open, and no build-id says whether the file "
			 "at that path here is the one it ran", prof_progname);
		return buf;
	}
	if (o->root >= 0)
		snprintf(where, sizeof(where), "in its process's root (%s)",
			 prof_sym_root_display(s, o->root, o->path, buf, n));
	else
		snprintf(where, sizeof(where), "in %s's mount namespace", prof_progname);
	if (o->root >= 0)
		couldnot[0] = 0;
	else
		snprintf(couldnot, sizeof(couldnot), "its process may run in a container, another mount "
			 "namespace, that %s could not look into", prof_progname);
	if (o->why == PROF_SYM_OTHER_FILE)
		snprintf(buf, n, "not named: the file at that path %s is another one (its build-id "
			 "is not the mapping's)%s%s", where, o->root >= 0 ? "" : "; ", couldnot);
	else if (len > 10 && strcmp(o->path + len - 10, " (deleted)") == 0)
		snprintf(buf, n, "not named: the file was deleted after it was mapped");
	else
		snprintf(buf, n, "not named: the file was not found %s%s%s%s", where,
			 o->root >= 0 ? "" : " (it was deleted, or ", couldnot, o->root >= 0 ? "" : ")");
	return buf;
}

int prof_symbolizer_naming_report(const struct prof_symbolizer *s, const char *unit)
{
	uint64_t total = 0, by_symbols;
	int lines = 0;

	for (int k = 0; k < PROF_NAMED_N; k++)
		total += s->named[k];
	by_symbols = s->named[PROF_NAMED_SYMBOL] + s->named[PROF_NAMED_DEBUGFILE] +
		     s->named[PROF_NAMED_CACHE];
	if (!total || by_symbols == total)
		return 0;
	prof_warn("names: %d%% of %s by the files' own symbols, %d%% by separate debug files, "
		  "%d%% from the symbol cache (names an earlier run found), %d%% by MiniDebugInfo, "
		  "%d%% by Go's pclntab, %d%% by function start only (.eh_frame, stripped code), "
		  "%d%% unnamed",
		  pct(s->named[PROF_NAMED_SYMBOL], total), unit,
		  pct(s->named[PROF_NAMED_DEBUGFILE], total), pct(s->named[PROF_NAMED_CACHE], total),
		  pct(s->named[PROF_NAMED_MINIDEBUG], total), pct(s->named[PROF_NAMED_GOPCLNTAB], total),
		  pct(s->named[PROF_NAMED_FDE], total),
		  pct(s->named[PROF_NAMED_NONE], total));
	lines++;
	for (size_t i = 0; i < s->nobjs; i++) {
		const struct elfobj *o = s->objs[i];
		uint64_t weak = o->named[PROF_NAMED_FDE] + o->named[PROF_NAMED_NONE];

		if (o->named[PROF_NAMED_DEBUGFILE] && pct(o->named[PROF_NAMED_DEBUGFILE], total) >= 5) {
			prof_warn("%d%% of %s in %s: named by its debug file %s",
				  pct(o->named[PROF_NAMED_DEBUGFILE], total), unit, o->path,
				  o->dpath ? o->dpath : "");
			lines++;
		}
		if (o->named[PROF_NAMED_CACHE] && pct(o->named[PROF_NAMED_CACHE], total) >= 5) {
			prof_warn("%d%% of %s in %s: named from the symbol cache (by an earlier run; "
				  "PROFTOOLS_NO_CACHE=1 names from the files alone)",
				  pct(o->named[PROF_NAMED_CACHE], total), unit, o->path);
			lines++;
		}
		if (!weak || pct(weak, total) < 5)
			continue;
		if (o->why != PROF_SYM_OPENED) {
			char why[8600];

			prof_warn("%d%% of %s in %s: %s", pct(weak, total), unit, o->path,
				  unopened(s, o, why, sizeof(why)));
			lines++;
			continue;
		}
		prof_warn("%d%% of %s in %s: no symbols, named by %s; install its debug symbols "
			  "(Debian: the -dbgsym package, Fedora: debuginfo-install) for names",
			  pct(weak, total), unit, o->path,
			  o->named[PROF_NAMED_FDE] >= o->named[PROF_NAMED_NONE] ? "function start" : "offset");
		lines++;
	}
	return lines;
}
