/*
 * The heat map's HTML page, after the cells heatmap.c draws (heatmap.h):
 * the range selection. The recording's stacks, aggregated per cell by
 * formats/heatmap.c, are written into the page once: frame names
 * interned (each distinct name once, in byte order, with its colour),
 * stacks as arrays of name indices (each distinct stack once), and per
 * cell its (stack, weight) pairs, packed in one string that the script
 * decodes on the first selection (its samples are the tooltips' table,
 * heatmap_cells.c, whose profHeatmap also locates the cells). The script
 * sums a range's cells, lays the sum out as flame.h describes (children
 * by name, frames under the minimum width dropped) and builds the same
 * markup as svg.c, which the flame graph's own script (script.c) then
 * drives.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/escape.h"
#include "base/xalloc.h"
#include "flame/flame.h"
#include "flame/heatmap.h"
#include "flame/internal.h"
#include "formats/folded.h"
#include "io/output.h"

/*
 * The page's script: HM (the data) is defined before it, and
 * profFlame (script.c). Cells are indexed second * per + bucket, which is
 * time order; a range [a, b] of cells is the time window
 * [start(a), start(b + 1)), written in seconds exactly as the cell edges
 * are (bucket_ns divides a second, so they are short decimals).
 */
static const char page_script[] =
"(function () {\n"
"\"use strict\";\n"
"var doc = document, NS = \"http://www.w3.org/2000/svg\", D = HM, P = profHeatmap;\n"
"var box = doc.getElementById(\"range\"), cmd = doc.getElementById(\"command\");\n"
"var note = doc.getElementById(\"rangenote\"), anchor = -1, down = -1, graph = null;\n"
"/* the cells' (stack, weight) pairs, decoded from D.cells on the first\n"
"   selection: cell c's are [start[c], start[c + 1]). A number is base-32\n"
"   digits, big-endian, the last one from the second half of the alphabet */\n"
"var start = null, pstack, pweight;\n"
"function decode() {\n"
"  var abc = \"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_\", val = [];\n"
"  var s = D.cells, i = 0, p = 0, nc = P.D.n.length;\n"
"  for (var k = 0; k < 64; k++) val[abc.charCodeAt(k)] = k;\n"
"  function num() {\n"
"    for (var v = 0, d; ; v = v * 32 + d) { d = val[s.charCodeAt(i++)]; if (d >= 32) return v * 32 + d - 32; }\n"
"  }\n"
"  start = new Uint32Array(nc + 1); pstack = new Uint32Array(D.npairs); pweight = new Float64Array(D.npairs);\n"
"  for (var c = 0; c < nc; c++) {\n"
"    start[c] = p;\n"
"    for (var n = num(), st = 0; n > 0; n--) { st += num(); pstack[p] = st; pweight[p++] = num() / D.scale; }\n"
"  }\n"
"  start[nc] = p;\n"
"}\n"
"/* the start of cell c in seconds, as a short exact decimal */\n"
"function secs(c) {\n"
"  var s = Math.floor(c / D.per), ns = (c % D.per) * D.bucket;\n"
"  return ns ? s + \".\" + String(1e9 + ns).substring(1).replace(/0+$/, \"\") : String(s);\n"
"}\n"
"function count(v) {\n"
"  return String(Math.round(v)).replace(/\\B(?=(\\d{3})+(?!\\d))/g, \",\");\n"
"}\n"
"/* outline cells a..b: at most three boxes (first column, whole columns,\n"
"   last column), not a class on each of thousands of cells */\n"
"var sel = doc.createElementNS(NS, \"g\");\n"
"sel.id = \"selection\";\n"
"doc.getElementById(\"cells\").parentNode.appendChild(sel);\n"
"function box1(c0, c1) {\n"
"  var r0 = P.rect(c0), r1 = P.rect(c1);\n"
"  sel.appendChild(el(\"rect\", { x: r0.x, y: r0.y, width: r1.x + r1.width - r0.x,\n"
"    height: r1.y + r1.height - r0.y }));\n"
"}\n"
"function mark(a, b) {\n"
"  var sa = Math.floor(a / D.per), sb = Math.floor(b / D.per), per = D.per;\n"
"  while (sel.firstChild) sel.removeChild(sel.firstChild);\n"
"  if (sa === sb) { box1(a, b); return; }\n"
"  box1(a, sa * per + per - 1);\n"
"  if (sb > sa + 1) box1((sa + 1) * per, sb * per - 1);\n"
"  box1(sb * per, b);\n"
"}\n"
"function el(name, attrs, text) {\n"
"  var e = doc.createElementNS(NS, name);\n"
"  for (var k in attrs) e.setAttribute(k, attrs[k]);\n"
"  if (text !== undefined) e.textContent = text;\n"
"  return e;\n"
"}\n"
"/* the range's stacks summed, as a tree: children by name index */\n"
"function tree(a, b) {\n"
"  var acc = new Map(), root = { f: -1, w: 0, k: null, n: 0 };\n"
"  if (!start) decode();\n"
"  for (var c = a; c <= b; c++) {\n"
"    root.n += P.D.n[c];\n"
"    for (var i = start[c]; i < start[c + 1]; i++) acc.set(pstack[i], (acc.get(pstack[i]) || 0) + pweight[i]);\n"
"  }\n"
"  acc.forEach(function (w, s) {\n"
"    var st = D.stacks[s], node = root;\n"
"    root.w += w;\n"
"    for (var j = 0; j < st.length; j++) {\n"
"      if (!node.k) node.k = new Map();\n"
"      var ch = node.k.get(st[j]);\n"
"      if (!ch) { ch = { f: st[j], w: 0, k: null }; node.k.set(st[j], ch); }\n"
"      ch.w += w; node = ch;\n"
"    }\n"
"  });\n"
"  return root;\n"
"}\n"
"/* frames [node, depth, start] in flame.h's layout order */\n"
"function layout(root, minw) {\n"
"  var out = [], dmax = 0;\n"
"  (function walk(node, d, x) {\n"
"    out.push([node, d, x]);\n"
"    if (d > dmax) dmax = d;\n"
"    if (!node.k || d >= D.maxdepth) return;\n"
"    var ks = Array.from(node.k.values()).sort(function (p, q) { return p.f - q.f; });\n"
"    for (var i = 0; i < ks.length; i++) {\n"
"      if (ks[i].w >= minw) walk(ks[i], d + 1, x);\n"
"      x += ks[i].w;\n"
"    }\n"
"  })(root, 0, 0);\n"
"  return { frames: out, depth: dmax };\n"
"}\n"
"function draw(a, b) {\n"
"  var root = tree(a, b), from = secs(a), to = secs(b + 1);\n"
"  var text = from + \" s to \" + to + \" s: \" + (b - a + 1) + \" cell\" + (a === b ? \"\" : \"s\") +\n"
"    \", \" + count(root.n) + \" sample\" + (root.n === 1 ? \"\" : \"s\");\n"
"  note.textContent = \"Range \" + text;\n"
"  cmd.textContent = \"proffold --time-from \" + from + \"s --time-to \" + to + \"s \" +\n"
"    D.input + \" | profflame\";\n"
"  if (graph) graph.release();\n"
"  graph = null;\n"
"  while (box.firstChild) box.removeChild(box.firstChild);\n"
"  if (!(root.w > 0)) { note.textContent += \" (nothing to draw)\"; return; }\n"
"  var fh = D.fh, fs = D.fs, pad = 10, refw = 1200, wpt = (refw - 2 * pad) / root.w;\n"
"  var lay = layout(root, D.minpct ? root.w * D.minwidth / 100 : D.minwidth / wpt);\n"
"  var ypad1 = fs * 3, ypad2 = fs * 2 + 10, h = (lay.depth + 1) * fh + ypad1 + ypad2;\n"
"  var base = h - ypad2 - fh + 1, svg = el(\"svg\", { version: \"1.1\", width: refw, height: h });\n"
"  var grad = el(\"linearGradient\", { id: \"rangebg\", x1: 0, x2: 0, y1: 0, y2: 1 });\n"
"  grad.appendChild(el(\"stop\", { \"stop-color\": D.bg[0], offset: \"5%\" }));\n"
"  grad.appendChild(el(\"stop\", { \"stop-color\": D.bg[1], offset: \"95%\" }));\n"
"  svg.appendChild(el(\"defs\")).appendChild(grad);\n"
"  svg.appendChild(el(\"rect\", { x: 0, y: 0, width: \"100%\", height: \"100%\", fill: \"url(#rangebg)\" }));\n"
"  svg.appendChild(el(\"text\", { id: \"rangetitle\", x: \"50%\", y: fs * 2 }, \"Flame Graph: \" + text));\n"
"  svg.appendChild(el(\"text\", { id: \"details\", x: 10, y: h - ypad2 / 2 }, \" \"));\n"
"  svg.appendChild(el(\"text\", { id: \"unzoom\", \"class\": \"hide\", x: 10, y: fs * 2 }, \"Reset Zoom\"));\n"
"  svg.appendChild(el(\"text\", { id: \"search\", x: \"100%\", dx: -110, y: fs * 2 }, \"Search\"));\n"
"  svg.appendChild(el(\"text\", { id: \"ignorecase\", x: \"100%\", dx: -26, y: fs * 2 }, \"ic\"));\n"
"  svg.appendChild(el(\"text\", { id: \"matched\", \"class\": \"hide\", x: \"100%\", dx: -110,\n"
"    y: h - ypad2 / 2 }, \" \"));\n"
"  var fr = svg.appendChild(el(\"g\", { id: \"frames\" }));\n"
"  for (var i = 0; i < lay.frames.length; i++) {\n"
"    var f = lay.frames[i], n = f[0], d = f[1], g = el(\"g\"), col = \"#f0f0f0\", dk = false;\n"
"    var name = n.f < 0 ? \"all\" : D.names[n.f], pct = n.f < 0 ? \"100\" : (100 * n.w / root.w).toFixed(2);\n"
"    if (n.f >= 0) { col = \"#\" + D.colors.substr(n.f * 6, 6); dk = D.dark.indexOf(n.f) >= 0; }\n"
"    g.appendChild(el(\"title\", {}, name + \" (\" + count(n.w * D.factor) + \" \" + D.unit + \", \" + pct + \"%)\"));\n"
"    var r = el(\"rect\", { x: (pad + f[2] * wpt).toFixed(2), y: base - d * fh,\n"
"      width: (n.w * wpt).toFixed(2), height: fh - 1, fill: col });\n"
"    if (dk) r.setAttribute(\"class\", \"dk\");\n"
"    g.appendChild(r);\n"
"    fr.appendChild(g);\n"
"  }\n"
"  box.appendChild(svg);\n"
"  graph = profFlame(fr, { pad: pad, refw: refw, fluid: true, inv: false, base: base, step: -fh,\n"
"    ty: 3 + (fh - 1) / 2, fs: fs, fw: D.fw, sc: \"rgb(230,0,230)\", nametype: D.nametype,\n"
"    unit: D.unit, embedded: true });\n"
"}\n"
"function select(a, b) {\n"
"  if (a > b) { var t = a; a = b; b = t; }\n"
"  anchor = a; mark(a, b); draw(a, b);\n"
"  try { history.replaceState(null, \"\", \"#range=\" + secs(a) + \",\" + secs(b + 1)); }\n"
"  catch (e) { /* no history (sandboxed) */ }\n"
"}\n"
"var grid = doc.getElementById(\"cells\"), first = -1;\n"
"grid.addEventListener(\"mousedown\", function (ev) {\n"
"  var c = P.at(ev.clientX, ev.clientY);\n"
"  if (c < 0) return;\n"
"  ev.preventDefault();\n"
"  down = c;\n"
"  if (!(ev.shiftKey && anchor >= 0)) mark(down, down);\n"
"}, false);\n"
"grid.addEventListener(\"mousemove\", function (ev) {\n"
"  var c = P.at(ev.clientX, ev.clientY);\n"
"  if (down >= 0 && c >= 0) mark(Math.min(down, c), Math.max(down, c));\n"
"}, false);\n"
"/* a drag selects at once; a click starts a range, a second click or a\n"
"   shift-click ends it (FlameScope's two clicks) */\n"
"window.addEventListener(\"mouseup\", function (ev) {\n"
"  if (down < 0) return;\n"
"  var c = P.at(ev.clientX, ev.clientY), a = down;\n"
"  down = -1;\n"
"  if (c < 0) c = a;\n"
"  if (ev.shiftKey && anchor >= 0) { first = -1; select(anchor, c); }\n"
"  else if (c !== a) { first = -1; select(a, c); }\n"
"  else if (first >= 0) { var s = first; first = -1; select(s, c); }\n"
"  else {\n"
"    first = anchor = c;\n"
"    note.textContent = \"Range starts at \" + secs(c) + \" s: click its last cell\";\n"
"  }\n"
"}, false);\n"
"var m = /[#&]range=([0-9.]+),([0-9.]+)/.exec(location.hash);\n"
"if (m) {\n"
"  var a = Math.round(parseFloat(m[1]) * D.per), b = Math.round(parseFloat(m[2]) * D.per) - 1;\n"
"  if (a >= 0 && b >= a && b < P.D.n.length) select(a, b);\n"
"}\n"
"})();\n";

struct page {
	const struct prof_heatmap *hm;
	const struct prof_flame_heatmap_opts *o;
	const struct prof_stacks *t;
	struct prof_output *out;
	struct prof_buf b;
	uint32_t *stack_ix;	/* stack id -> index in the page; UINT32_MAX: not in a cell */
	uint32_t *name_ix;	/* frame id -> index in the page; UINT32_MAX: not in a stack */
	uint32_t *names;	/* the page's names: frame ids in byte order */
	size_t nstacks, nnames;
	int r;
};

static void flush_some(struct page *p, int force)
{
	if (p->r == 0 && (force || p->b.len >= 1 << 16)) {
		p->r = prof_output_write(p->out, p->b.data, p->b.len);
		prof_buf_reset(&p->b);
	}
}

/* Index the stacks the cells hold, and their frames in byte order. */
static void index_stacks(struct page *p)
{
	size_t nids = prof_stacks_count(p->t), nf = prof_intern_count(&p->t->frames), i, k;

	p->stack_ix = xmalloc((nids ? nids : 1) * sizeof(*p->stack_ix));
	p->name_ix = xmalloc((nf ? nf : 1) * sizeof(*p->name_ix));
	p->names = xmalloc((nf ? nf : 1) * sizeof(*p->names));
	memset(p->stack_ix, 0xff, (nids ? nids : 1) * sizeof(*p->stack_ix));
	memset(p->name_ix, 0xff, (nf ? nf : 1) * sizeof(*p->name_ix));
	for (i = 0; i < p->hm->nstacks; i++)
		p->stack_ix[p->hm->stacks[i].id] = 0;
	for (i = 0; i < nids; i++) {
		size_t depth;
		const uint32_t *f;

		if (p->stack_ix[i] == UINT32_MAX)
			continue;
		p->stack_ix[i] = (uint32_t)p->nstacks++;
		f = prof_stacks_frames(p->t, (uint32_t)i, &depth);
		for (k = 0; k < depth; k++)
			if (p->name_ix[f[k]] == UINT32_MAX) {
				p->name_ix[f[k]] = 0;
				p->names[p->nnames++] = f[k];
			}
	}
	/* byte order, so that the script sorts siblings by index as layout.c does by name */
	if (p->nnames)
		qsort_r(p->names, p->nnames, sizeof(*p->names), prof_flame_compare_names,
			(void *)&p->t->frames);
	for (i = 0; i < p->nnames; i++)
		p->name_ix[p->names[i]] = (uint32_t)i;
}

/* A file name as a shell word: bare when it is safe, else single-quoted. */
static void add_shell_word(struct prof_buf *b, const char *s)
{
	const char *c;

	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			 "_./+-:=@%,") == strlen(s) && *s != '-') {
		prof_buf_addstr(b, s);
		return;
	}
	prof_buf_addch(b, '\'');
	for (c = s; *c; c++)
		if (*c == '\'')
			prof_buf_addstr(b, "'\\''");
		else
			prof_buf_addch(b, *c);
	prof_buf_addch(b, '\'');
}

/* HM's constants: the grid, the command's input, the range graph's options. */
static void write_constants(struct page *p)
{
	const struct prof_flame_opts *f = p->o->flame;
	struct prof_buf word = PROF_BUF_INIT, *b = &p->b;

	add_shell_word(&word, p->o->input ? p->o->input : "RECORDING");
	prof_buf_addf(b, "var HM = {bucket: %llu, per: %zu, input: ",
		      (unsigned long long)p->hm->bucket_ns, p->hm->per_second);
	prof_flame_add_js_string(b, word.data);
	prof_buf_addstr(b, ", unit: ");
	prof_flame_add_js_string(b, f->countname);
	prof_buf_addstr(b, ", nametype: ");
	prof_flame_add_js_string(b, f->nametype);
	prof_buf_addf(b, ", factor: %.17g, fh: %.17g, fs: %.17g, fw: %.17g, minwidth: %.17g, "
		      "minpct: %s, maxdepth: %u, bg: [\"%s\", \"%s\"],\n", f->factor,
		      f->frameheight, f->fontsize, f->fontwidth, f->minwidth,
		      f->minwidth_pct ? "true" : "false", f->maxdepth, f->bg1, f->bg2);
	prof_buf_release(&word);
}

/* names (display names), colors (6 hex digits each, one string), dark. */
static void write_names(struct page *p)
{
	const struct prof_flame_opts *f = p->o->flame;
	struct prof_buf *b = &p->b;
	size_t i, len;
	const char *s;
	int first = 1;

	prof_buf_addstr(b, "names: [");
	for (i = 0; i < p->nnames; i++) {
		s = prof_stacks_frame_name(p->t, p->names[i], &len);
		prof_buf_addstr(b, i ? "," : "");
		prof_flame_add_js_string_len(b, s, prof_flame_deannotate(s, len));
		flush_some(p, 0);
	}
	prof_buf_addstr(b, "],\ncolors: \"");
	for (i = 0; i < p->nnames; i++) {
		s = prof_stacks_frame_name(p->t, p->names[i], &len);
		prof_buf_addf(b, "%06x", (unsigned)prof_flame_color(f->palette, f->hash, s, len));
	}
	prof_buf_addstr(b, "\",\ndark: [");
	for (i = 0; i < p->nnames; i++) {
		s = prof_stacks_frame_name(p->t, p->names[i], &len);
		if (prof_flame_dark(prof_flame_color(f->palette, f->hash, s, len))) {
			prof_buf_addf(b, "%s%zu", first ? "" : ",", i);
			first = 0;
		}
	}
	prof_buf_addstr(b, "],\n");
}

/* The alphabet of D.cells: a digit of value d < 32 not the number's last, d + 32 its last. */
static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* v as base-32 digits, big-endian, the last marked (the script's num()). */
static void add_packed(struct prof_buf *b, uint64_t v)
{
	char tmp[16];
	int n = 0;

	tmp[n++] = digits[32 + (v & 31)];
	while ((v >>= 5) != 0)
		tmp[n++] = digits[v & 31];
	while (n)
		prof_buf_addch(b, tmp[--n]);
}

/*
 * The power of ten the cells' weights are written in (scale: their
 * divisor in the script): the smallest that makes every weight an integer
 * (to 1e-6 of a unit, what a sum of decimal counts is good for; integers,
 * the common case, need none), as long as the heaviest stays below 2^53
 * (a double's integers); *pairs: how many (stack, weight) pairs there are.
 */
static int weight_exponent(const struct prof_heatmap *hm, size_t *pairs)
{
	prof_weight max = 0, x, p10;
	size_t i;
	int e;

	*pairs = hm->start[hm->ncells];
	for (i = 0; i < *pairs; i++)
		if (hm->stacks[i].weight > max)
			max = hm->stacks[i].weight;
	for (e = 0; e < 15 && max * powl(10, e + 1) < 0x1p53L; e++) {
		p10 = powl(10, e);
		for (i = 0; i < *pairs; i++) {
			x = hm->stacks[i].weight * p10;
			if (fabsl(x - roundl(x)) > 1e-6L * p10)
				break;
		}
		if (i == *pairs)
			break;
	}
	return e;
}

/*
 * stacks: name indices, root first; cells: one string, per cell its
 * number of pairs, then per pair the stack index (less the previous
 * one's: they ascend) and the weight times 10^scale, as add_packed()
 * writes them: about 6 bytes a pair instead of 12 as JSON numbers, and a
 * string costs the browser nothing to parse until a range is selected.
 */
static void write_stacks_cells(struct page *p)
{
	const struct prof_heatmap *hm = p->hm;
	struct prof_buf *b = &p->b;
	size_t i, k, c, depth, pairs, n = prof_stacks_count(p->t);
	int e = weight_exponent(hm, &pairs);
	prof_weight scale = powl(10, e), x;

	prof_buf_addstr(b, "stacks: [");
	for (i = 0; i < n; i++) {
		const uint32_t *f;

		if (p->stack_ix[i] == UINT32_MAX)
			continue;
		f = prof_stacks_frames(p->t, (uint32_t)i, &depth);
		prof_buf_addstr(b, p->stack_ix[i] ? ",[" : "[");
		for (k = 0; k < depth; k++)
			prof_buf_addf(b, "%s%u", k ? "," : "", p->name_ix[f[k]]);
		prof_buf_addch(b, ']');
		flush_some(p, 0);
	}
	prof_buf_addf(b, "],\nnpairs: %zu, scale: 1e%d,\ncells: \"", pairs, e);
	for (c = 0; c < hm->ncells; c++) {
		uint32_t prev = 0;

		add_packed(b, hm->start[c + 1] - hm->start[c]);
		for (i = hm->start[c]; i < hm->start[c + 1]; i++) {
			add_packed(b, p->stack_ix[hm->stacks[i].id] - prev);
			prev = p->stack_ix[hm->stacks[i].id];
			x = roundl(hm->stacks[i].weight * scale);
			add_packed(b, x > 0 ? (x < 0x1p64L ? (uint64_t)x : UINT64_MAX) : 0);
		}
		if (c % 64 == 63)
			prof_buf_addstr(b, "\\\n");
		flush_some(p, 0);
	}
	prof_buf_addstr(b, "\"};\n");
}

int prof_flame_heatmap_write_page(const struct prof_heatmap *hm,
				  const struct prof_flame_heatmap_opts *o, struct prof_output *out)
{
	struct page p;
	double fs = o->fontsize;

	memset(&p, 0, sizeof(p));
	p.hm = hm;
	p.o = o;
	p.t = o->stacks;
	p.out = out;
	if (!o->stacks || !hm->start) {
		prof_buf_addstr(&p.b, "<p style=\"margin:0.5em 1em\">These cells come from a heat map "
			       "TSV, without stacks: draw the recording itself (profflame --heatmap "
			       "--format html RECORDING) to select a time range and see its flame "
			       "graph.</p>\n");
		flush_some(&p, 1);
		prof_buf_release(&p.b);
		return p.r;
	}
	index_stacks(&p);
	prof_buf_addstr(&p.b, "<style>\n#cells{cursor:pointer}\n"
		       "#selection rect{fill:#0050d0;fill-opacity:0.15;stroke:#0050d0;stroke-width:2;"
		       "pointer-events:none}\n"
		       "#rangetitle{text-anchor:middle;font-size:");
	prof_flame_add_num(&p.b, fs + 5);
	prof_buf_addstr(&p.b, "px}\n.range{margin:0.4em 1em;font-family:");
	prof_xml_escape(&p.b, o->fonttype, strlen(o->fonttype));
	prof_buf_addstr(&p.b, ";font-size:");
	prof_flame_add_num(&p.b, fs + 1);
	prof_buf_addstr(&p.b, "px}\n</style>\n");
	prof_flame_add_style(&p.b, o->flame);
	prof_buf_addstr(&p.b, "<p class=\"range\">Select a time range: click its first cell, then "
		       "its last (or drag across the cells; shift-click sets a new end). Its flame "
		       "graph is drawn below.</p>\n<p class=\"range\" id=\"rangenote\"></p>\n"
		       "<p class=\"range\">Same as: <code id=\"command\"></code> (times in seconds "
		       "since the start of the recording; perf script: since its first sample)"
		       "</p>\n<div id=\"range\"></div>\n<script>\n");
	write_constants(&p);
	write_names(&p);
	write_stacks_cells(&p);
	prof_buf_addstr(&p.b, prof_flame_script);
	prof_buf_addstr(&p.b, page_script);
	prof_buf_addstr(&p.b, "</script>\n");
	flush_some(&p, 1);
	prof_buf_release(&p.b);
	free(p.stack_ix);
	free(p.name_ix);
	free(p.names);
	return p.r;
}
