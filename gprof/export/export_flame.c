// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --export=flamegraph and --export=icicle: a flame graph in one SVG file
 * that a browser shows as it is (no other file, no network).
 *
 * Each box is a function in one calling context (export_stacks.c), as
 * wide as the samples in it and below it; the boxes on top of it are
 * the functions it called.  The root "all" is every sample.  A flame
 * graph grows upwards from the root, an icicle graph hangs down from it.
 * Siblings are in name order, so that neither the x axis nor the colours
 * mean time: the colour is a warm shade picked from the name (the same
 * function has the same colour everywhere), or, in a multi-module
 * profile, the module's hue, with a legend.
 *
 * Boxes narrower than MIN_WIDTH pixels are left out with everything
 * above them (FlameGraph's --minwidth): they could not be seen or
 * pointed at, and a large profile would make a huge file.  Their
 * samples still count in their parent's width.
 *
 * The embedded script (ECMAScript, no library) gives what a static
 * picture cannot: a tooltip on each box (<title>, which works without
 * the script too), the hovered box's numbers in the bottom line, click
 * to zoom into a box, "Search" to highlight the functions matching a
 * regular expression with the share of the samples they cover, and
 * "Reset zoom".
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sprofil/events.h>

#include "export/export.h"

#define WIDTH 1200		/* the picture, pixels */
#define PAD 10			/* left and right margin */
#define FRAME_H 16		/* one box */
#define FONT 12			/* px */
#define CHAR_W 7.0		/* a character of the font, about */
#define TOP 60			/* the title, subtitle and buttons */
#define BOTTOM 30		/* the details line */
#define MIN_WIDTH 0.1		/* pixels */

static double px_per_sample;
static bool *module_drawn;	/* [nmodules]: a box of it is drawn */
static unsigned int max_depth;
static uint64_t all_samples;

void export_xml_text(const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '&')
			fputs("&amp;", stdout);
		else if (c == '<')
			fputs("&lt;", stdout);
		else if (c == '>')
			fputs("&gt;", stdout);
		else if (c == '"')
			fputs("&quot;", stdout);
		else if (c < 0x20)
			putchar(' ');	/* not allowed in XML 1.0 */
		else if (c >= 0x80)
			putchar('?');	/* may not be UTF-8: not well-formed */
		else
			putchar(c);
	}
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* Hues for the modules, apart enough to tell; then they repeat. */
static const int module_hue[] = { 20, 210, 120, 280, 50, 170, 330, 90 };
#define NHUES (sizeof(module_hue) / sizeof(module_hue[0]))

static void hsl(int h, double s, double l, char out[24])
{
	double c = (1 - fabs(2 * l - 1)) * s, hp = h / 60.0;
	double x = c * (1 - fabs(fmod(hp, 2) - 1)), m = l - c / 2;
	double r = 0, g = 0, b = 0;

	if (hp < 1) {
		r = c; g = x;
	} else if (hp < 2) {
		r = x; g = c;
	} else if (hp < 3) {
		g = c; b = x;
	} else if (hp < 4) {
		g = x; b = c;
	} else if (hp < 5) {
		r = x; b = c;
	} else {
		r = c; b = x;
	}
	snprintf(out, 24, "rgb(%d,%d,%d)", (int)((r + m) * 255),
		 (int)((g + m) * 255), (int)((b + m) * 255));
}

/* The ordinary flame graph's callbacks: struct flame_svg's data. */
struct plain {
	struct profile *prof;
	const struct gprof_options *opt;
};

static void fill_of(const struct flame_svg *f, uint32_t i, char out[24])
{
	struct profile *prof = ((const struct plain *)f->data)->prof;
	const struct stack_node *n = &f->st->node[i];
	uint32_t h = name_hash(n->name);

	if (n->name[0] == '[' || n->module == UINT_MAX) {
		hsl(0, 0, 0.75 + (h % 10) / 100.0, out);	/* grey */
	} else if (prof->multi_module) {
		hsl(module_hue[n->module % NHUES], 0.65,
		    0.55 + (h % 20) / 100.0, out);
	} else {
		/* FlameGraph's "hot": red through orange to yellow. */
		snprintf(out, 24, "rgb(%u,%u,%u)", 205 + h % 51,
			 (h >> 8) % 231, (h >> 16) % 56);
	}
}

/*
 * The box's text: in a multi-module profile the name without its
 * "module`" (the colour and the tooltip say the module).
 */
static const char *label_of(const struct flame_svg *f, uint32_t i)
{
	struct profile *prof = ((const struct plain *)f->data)->prof;
	const struct stack_node *n = &f->st->node[i];
	const char *mod;
	size_t len;

	if (!prof->multi_module || n->module >= prof->nmodules)
		return n->name;
	mod = module_basename(&prof->modules[n->module]);
	len = strlen(mod);
	if (!strncmp(n->name, mod, len) && n->name[len] == '`')
		return n->name + len + 1;
	return n->name;
}

static void tip_of(const struct flame_svg *f, uint32_t i)
{
	struct profile *prof = ((const struct plain *)f->data)->prof;
	const struct stack_node *n = &f->st->node[i];

	export_xml_text(n->name);
	if (prof->event_type)
		printf(" (%llu %s, %.2f%%)",
		       (unsigned long long)(n->total * prof->event_period),
		       n->total * prof->event_period == 1 ?
		       spe_event(prof->event_type)->unit :
		       spe_event(prof->event_type)->units,
		       100.0 * n->total / all_samples);
	else
		printf(" (%llu sample%s, %.2f%%)",
		       (unsigned long long)n->total, n->total == 1 ? "" : "s",
		       100.0 * n->total / all_samples);
}

static void drawn(const struct flame_svg *f, uint32_t i)
{
	struct profile *prof = ((const struct plain *)f->data)->prof;

	if (f->st->node[i].module < prof->nmodules)
		module_drawn[f->st->node[i].module] = true;
}

static double y_of(unsigned int depth, bool icicle)
{
	return icicle ? TOP + depth * FRAME_H :
	       TOP + (max_depth - depth) * FRAME_H;
}

static unsigned int depth_of(const struct flame_svg *f, uint32_t i,
			     unsigned int depth)
{
	const struct stacks *st = f->st;
	unsigned int d = depth, k;
	uint32_t c;

	for (c = st->node[i].first_child; c != CALLER_NONE;
	     c = st->node[c].next_sibling) {
		if (st->node[c].total * px_per_sample < MIN_WIDTH)
			continue;
		if (f->drawn)
			f->drawn(f, c);
		k = depth_of(f, c, depth + 1);
		if (k > d)
			d = k;
	}
	return d;
}

static void frame(const struct flame_svg *f, uint32_t i, uint64_t x,
		  unsigned int depth)
{
	const struct stacks *st = f->st;
	const struct stack_node *n = &st->node[i];
	double w = n->total * px_per_sample;
	const char *label = f->label(f, i);
	size_t fit = w > 6 ? (size_t)((w - 6) / CHAR_W) : 0;
	size_t len = strlen(label);
	bool icicle = f->icicle;
	char fill[24];
	uint32_t c;

	if (w < MIN_WIDTH)
		return;
	f->fill(f, i, fill);
	printf("<g class=\"f\"><title>");
	f->tip(f, i);
	printf("</title>");
	printf("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"2\" data-x=\"%llu\" data-w=\"%llu\" data-d=\"%u\" data-name=\"",
	       PAD + x * px_per_sample, y_of(depth, icicle), w, FRAME_H - 1,
	       fill, (unsigned long long)x, (unsigned long long)n->total,
	       depth);
	export_xml_text(n->name);
	printf("\" data-label=\"");
	export_xml_text(label);
	printf("\"/><text x=\"%.1f\" y=\"%.1f\">", PAD + x * px_per_sample + 3,
	       y_of(depth, icicle) + FRAME_H - 4.5);
	/* What fits; the script redoes it on zoom. */
	if (fit >= 3) {
		if (len <= fit) {
			export_xml_text(label);
		} else {
			char *cut = xstrdup(label);

			cut[fit - 2] = 0;
			export_xml_text(cut);
			printf("..");
			free(cut);
		}
	}
	printf("</text></g>\n");
	for (c = n->first_child; c != CALLER_NONE;
	     c = st->node[c].next_sibling) {
		frame(f, c, x, depth + 1);
		x += st->node[c].total;
	}
}

static const char script[] =
"var W = " "%d" ", PAD = %d, CW = %.1f, total = %llu;\n"
"var frames = [], details, matched, zoomed = null, re = null;\n"
"function init() {\n"
"  var gs = document.getElementsByTagName('g');\n"
"  for (var i = 0; i < gs.length; i++) {\n"
"    if (gs[i].getAttribute('class') != 'f') continue;\n"
"    var r = gs[i].getElementsByTagName('rect')[0];\n"
"    var f = { g: gs[i], r: r, t: gs[i].getElementsByTagName('text')[0],\n"
"      x: +r.getAttribute('data-x'), w: +r.getAttribute('data-w'),\n"
"      d: +r.getAttribute('data-d'), name: r.getAttribute('data-name'),\n"
"      label: r.getAttribute('data-label'),\n"
"      fill: r.getAttribute('fill'),\n"
"      tip: gs[i].getElementsByTagName('title')[0].textContent };\n"
"    frames.push(f);\n"
"    gs[i].onclick = (function (f) { return function () { zoom(f); }; })(f);\n"
"    gs[i].onmouseover = (function (f) { return function () {\n"
"      details.textContent = f.tip; }; })(f);\n"
"    gs[i].onmouseout = function () { details.textContent = ' '; };\n"
"  }\n"
"  details = document.getElementById('details');\n"
"  matched = document.getElementById('matched');\n"
"}\n"
"function label(f, w) {\n"
"  var n = Math.floor((w - 6) / CW);\n"
"  f.t.textContent = n < 3 ? '' : f.label.length <= n ? f.label :\n"
"    f.label.substring(0, n - 2) + '..';\n"
"}\n"
"function place(f, x, w, show, faded) {\n"
"  f.g.style.display = show ? '' : 'none';\n"
"  if (!show) return;\n"
"  f.r.setAttribute('x', x); f.r.setAttribute('width', w);\n"
"  f.t.setAttribute('x', x + 3); f.g.style.opacity = faded ? 0.5 : 1;\n"
"  label(f, w);\n"
"}\n"
"function zoom(z) {\n"
"  var scale = (W - 2 * PAD) / z.w;\n"
"  zoomed = z;\n"
"  document.getElementById('unzoom').style.opacity = 1;\n"
"  for (var i = 0; i < frames.length; i++) {\n"
"    var f = frames[i];\n"
"    if (f.d < z.d)\n"
"      place(f, PAD, W - 2 * PAD, f.x <= z.x && f.x + f.w >= z.x + z.w, 1);\n"
"    else\n"
"      place(f, PAD + (f.x - z.x) * scale, f.w * scale,\n"
"            f.x >= z.x && f.x + f.w <= z.x + z.w && f.w * scale >= 0.1, 0);\n"
"  }\n"
"}\n"
"function unzoom() {\n"
"  var scale = (W - 2 * PAD) / total;\n"
"  zoomed = null;\n"
"  document.getElementById('unzoom').style.opacity = 0.3;\n"
"  for (var i = 0; i < frames.length; i++)\n"
"    place(frames[i], PAD + frames[i].x * scale, frames[i].w * scale, 1, 0);\n"
"}\n"
"function search() {\n"
"  var s = prompt('Highlight the functions matching (a regular expression; empty to clear):', re ? re.source : '');\n"
"  if (s === null) return;\n"
"  try { re = s ? new RegExp(s) : null; } catch (e) { alert(e); return; }\n"
"  var spans = [];\n"
"  for (var i = 0; i < frames.length; i++) {\n"
"    var f = frames[i], hit = re && re.test(f.name);\n"
"    f.r.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);\n"
"    if (hit) spans.push([f.x, f.x + f.w]);\n"
"  }\n"
"  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
"  var sum = 0, end = -1;\n"
"  for (var j = 0; j < spans.length; j++) {\n"
"    var a = Math.max(spans[j][0], end);\n"
"    if (spans[j][1] > a) { sum += spans[j][1] - a; end = spans[j][1]; }\n"
"  }\n"
"  matched.textContent = re ? 'Matched: ' + (100 * sum / total).toFixed(2) + '%% of samples' : ' ';\n"
"}\n";

/* The title and the subtitle: what the graph is of, in what units. */
static void title_of(const struct flame_svg *f)
{
	const struct plain *pl = f->data;
	struct profile *prof = pl->prof;
	const struct stacks *st = f->st;
	double seconds = prof->callers.period_ns && st->from_chains ?
			 all_samples * prof->callers.period_ns * 1e-9 :
			 prof->hz > 0 ? all_samples / prof->hz : 0;
	const struct spe_event *e = spe_event(prof->event_type);
	bool icicle = f->icicle;
	char total[64];

	/* What the samples count: seconds of CPU time, or events. */
	if (prof->event_type)
		snprintf(total, sizeof(total), "%llu %s",
			 (unsigned long long)(all_samples *
					      prof->event_period),
			 e->units);
	else
		snprintf(total, sizeof(total), "%.2f s", seconds);

	printf("<text x=\"%d\" y=\"22\" class=\"title\">%s graph of %s%s",
	       WIDTH / 2, icicle ? "Icicle" : "Flame",
	       prof->event_type ? e->units : "",
	       prof->event_type ? " in " : "");
	export_xml_text(pl->opt->a_out_name);
	printf("</text>\n<text x=\"%d\" y=\"40\" class=\"sub\">%llu samples (%s); %s. Width = share of the samples; %s. Click a box to zoom.</text>\n",
	       WIDTH / 2, (unsigned long long)all_samples, total,
	       st->from_chains ? "stacks from the recorded call chains" :
	       "no call chains in the profile: one frame per function",
	       icicle ? "callers above their callees" :
	       "callers below their callees");
}

/* The buttons and the lines the script writes, under the title. */
static void controls(void)
{
	printf("<text id=\"unzoom\" x=\"%d\" y=\"22\" class=\"button\" style=\"opacity:0.3\" onclick=\"unzoom()\">Reset zoom</text>\n",
	       PAD);
	printf("<text x=\"%d\" y=\"22\" class=\"button\" text-anchor=\"end\" onclick=\"search()\">Search</text>\n",
	       WIDTH - PAD);
	printf("<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n",
	       WIDTH - PAD, TOP + (max_depth + 1) * FRAME_H + 20);
	printf("<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", PAD,
	       TOP + (max_depth + 1) * FRAME_H + 20);
}

/* Multi-module profiles: which colour is which module, under the title. */
static void legend(const struct flame_svg *f)
{
	struct profile *prof = ((const struct plain *)f->data)->prof;
	unsigned int m;
	double x = PAD;
	char fill[24];

	if (!prof->multi_module)
		return;
	printf("<text x=\"%.1f\" y=\"55\" font-size=\"11\">colour = load module:</text>\n",
	       x);
	x += 14 + CHAR_W * 20;
	for (m = 0; m < prof->nmodules && x < WIDTH - 100; m++) {
		const char *name = module_basename(&prof->modules[m]);

		if (!module_drawn[m])
			continue;
		hsl(module_hue[m % NHUES], 0.65, 0.6, fill);
		printf("<rect x=\"%.1f\" y=\"46\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%.1f\" y=\"55\" font-size=\"11\">",
		       x, fill, x + 14);
		export_xml_text(name);
		printf("</text>\n");
		x += 24 + CHAR_W * strlen(name);
	}
}

void flame_svg_empty(const char *title, const char *name, const char *why)
{
	printf("<?xml version=\"1.0\" standalone=\"no\"?>\n<svg version=\"1.1\" width=\"%d\" height=\"60\" viewBox=\"0 0 %d 60\" xmlns=\"http://www.w3.org/2000/svg\"><text x=\"%d\" y=\"30\" font-family=\"Verdana, sans-serif\">",
	       WIDTH, WIDTH, PAD);
	export_xml_text(title);
	export_xml_text(name);
	printf(": %s</text></svg>\n", why);
}

void flame_svg_write(const struct flame_svg *f)
{
	int height;

	all_samples = f->st->node[0].total;
	px_per_sample = (double)(WIDTH - 2 * PAD) / all_samples;
	max_depth = depth_of(f, 0, 0);
	height = TOP + (max_depth + 1) * FRAME_H + BOTTOM;
	printf("<?xml version=\"1.0\" standalone=\"no\"?>\n");
	printf("<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\" onload=\"init()\">\n",
	       WIDTH, height, WIDTH, height);
	printf("<style type=\"text/css\">text { font-family: Verdana, sans-serif; font-size: %dpx; fill: black; } .title { font-size: 17px; text-anchor: middle; } .sub { font-size: 12px; text-anchor: middle; fill: #555; } .button { cursor: pointer; fill: #0645ad; } g.f { cursor: pointer; } g.f:hover rect { stroke: black; stroke-width: 0.5; }</style>\n",
	       FONT);
	printf("<script type=\"text/ecmascript\"><![CDATA[\n");
	printf(script, WIDTH, PAD, CHAR_W, (unsigned long long)all_samples);
	printf("]]></script>\n");
	printf("<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f0\"/>\n",
	       WIDTH, height);
	f->title(f);
	controls();
	if (f->legend)
		f->legend(f);
	frame(f, 0, 0, 0);
	printf("</svg>\n");
}

int export_flamegraph(struct profile *prof, const struct gprof_options *opt,
		      bool icicle)
{
	const char *format = icicle ? "icicle" : "flamegraph";
	struct plain pl = { .prof = prof, .opt = opt };
	struct flame_svg f = {
		.icicle = icicle, .data = &pl, .fill = fill_of,
		.tip = tip_of, .label = label_of, .drawn = drawn,
		.title = title_of, .legend = legend,
	};
	struct stacks st;

	if (!stacks_build(prof, opt, &st, format)) {
		flame_svg_empty(icicle ? "Icicle graph of " :
				"Flame graph of ", opt->a_out_name,
				"the profile has no samples");
		stacks_free(&st);
		return 0;
	}
	f.st = &st;
	module_drawn = xcalloc(prof->nmodules ? prof->nmodules : 1,
			       sizeof(*module_drawn));
	flame_svg_write(&f);
	free(module_drawn);
	module_drawn = NULL;
	stacks_free(&st);
	return 0;
}
