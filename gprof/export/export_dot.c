// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --export=dot: the call graph for Graphviz, made to be read by someone
 * who has not seen the program: a title saying what the numbers are,
 * one box per function with its total and self share, arcs labelled
 * with their share and call count, colours from blue (cold) to red
 * (hot) as gprof2dot draws them, and each load module a box of its own
 * (a cluster) in a multi-module profile.
 *
 * A real program's graph has hundreds of functions of no weight, so, as
 * gprof2dot does, functions below --node-threshold percent of the time
 * (0.5 by default) and arcs below --edge-threshold percent (0.1) are
 * left out, and the title says how many.  A profile with no time (call
 * counts alone) has nothing to weigh by: every function is kept then.
 *
 * --render=FORMAT (main.c) pipes this through `dot -TFORMAT`.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "export/export.h"

static double seconds(struct profile *prof, double ticks)
{
	return prof->hz > 0 ? ticks / prof->hz : 0.0;
}

static double pct(struct profile *prof, double ticks)
{
	return prof->print_time > 0 ? 100 * ticks / prof->print_time : 0.0;
}

/* The profile has call counts (-pg); else no box or arrow shows calls. */
static bool any_counts(struct profile *prof)
{
	return !prof->measured_times || prof->caller_stats.has_counts;
}

static bool node_kept(struct profile *prof, const struct gprof_options *opt,
		      const struct sym *s)
{
	return shown(prof, opt, s) &&
	       (prof->print_time <= 0 ||
		share(prof, s) >= opt->node_threshold);
}

static double arc_ticks(const struct arc *a)
{
	return a->time + a->child_time;
}

/*
 * Recursive calls carry no time of their own: kept with their node when
 * counted (-pg), as an unlabelled loop says nothing.
 */
static bool arc_kept(struct profile *prof, const struct gprof_options *opt,
		     const struct arc *a)
{
	if (!node_kept(prof, opt, a->parent) || !node_kept(prof, opt, a->child))
		return false;
	if (a->child == a->parent)
		return !a->uncounted && any_counts(prof);
	return prof->print_time <= 0 ||
	       pct(prof, arc_ticks(a)) >= opt->edge_threshold;
}

/*
 * A colour map like gprof2dot's, blue through green and yellow to red
 * as the share grows (HSL, hue 240 to 0 degrees); the cold end is
 * squeezed so that the few hot functions stand out.
 */
static void colour(double share_pct, char out[8])
{
	double t = share_pct / 100, h, l, c, x, rgb[3] = { 0, 0, 0 };
	int k;

	t = t < 0 ? 0 : t > 1 ? 1 : t;
	t = t < 0.5 ? 2 * t * t : t;
	h = (1 - t) * 240.0 / 60.0;	/* the sextant, 0 to 4 */
	l = 0.35 + 0.1 * (1 - t);	/* dark enough for white text */
	c = (1 - fabs(2 * l - 1)) * 0.9;
	x = c * (1 - fabs(fmod(h, 2) - 1));
	k = h < 1 ? 0 : h < 2 ? 1 : h < 3 ? 2 : 3;
	/* Red-yellow, yellow-green, green-cyan, cyan-blue. */
	rgb[k == 0 ? 0 : k == 1 ? 1 : k == 2 ? 1 : 2] = c;
	rgb[k == 0 ? 1 : k == 1 ? 0 : k == 2 ? 2 : 1] = x;
	snprintf(out, 8, "#%02x%02x%02x", (int)((rgb[0] + l - c / 2) * 255),
		 (int)((rgb[1] + l - c / 2) * 255),
		 (int)((rgb[2] + l - c / 2) * 255));
}

static void print_calls(struct profile *prof, bool unknown, uint64_t n)
{
	if (!any_counts(prof))
		return;
	if (unknown)
		printf("calls not counted");
	else
		printf("%llu call%s", (unsigned long long)n, n == 1 ? "" : "s");
}

static void node(struct profile *prof, const struct gprof_options *opt,
		 size_t i, const char *indent)
{
	struct sym *s = &prof->symtab.base[i];
	char *name = display_name(opt, s), fill[8];

	colour(share(prof, s), fill);
	printf("%sf%zu [label=\"", indent, i);
	escaped(name);
	free(name);
	printf("\\n%.2f%% total (%.2f s)\\n%.2f%% self%s", share(prof, s),
	       seconds(prof, s->cg.prop.self + s->cg.prop.child),
	       pct(prof, s->cg.prop.self), any_counts(prof) ? "\\n" : "");
	print_calls(prof, sym_calls_unknown(prof, s), s->ncalls);
	printf("\", fillcolor=\"%s\"];\n", fill);
}

static void arc(struct profile *prof, size_t i, const struct arc *a)
{
	char c[8];
	double p = pct(prof, arc_ticks(a));

	colour(p, c);
	printf("\tf%zu -> f%zu [label=\"", i, (size_t)(a->child - prof->symtab.base));
	if (a->child != a->parent)
		printf("%.2f%% (%.2f s)%s", p, seconds(prof, arc_ticks(a)),
		       any_counts(prof) ? "\\n" : "");
	print_calls(prof, a->uncounted, a->count);
	printf("\", color=\"%s\", fontcolor=\"%s\", penwidth=%.1f];\n", c, c,
	       1 + 3 * p / 100);
}

/* The title: what the program was, what the numbers are, what is left out. */
static void title(struct profile *prof, const struct gprof_options *opt,
		  size_t hidden_nodes,
		  size_t hidden_arcs)
{
	printf("\tlabel=\"");
	escaped(opt->a_out_name);
	printf(": %.2f s of samples; times %s\\l", seconds(prof, prof->print_time),
	       prof->measured_times ? "measured from call chains" :
	       "estimated from call counts, as GNU gprof does");
	printf("box: function, %% of all time in it and below it (total), in it alone (self)%s\\l",
	       any_counts(prof) ? ", calls into it" : "");
	printf("arrow: caller to callee, %% of all time spent below that call%s\\l",
	       any_counts(prof) ? ", calls" :
	       "; no call counts (the program was not built with -pg)");
	if (hidden_nodes || hidden_arcs)
		printf("not shown: %zu functions under %g %% (--node-threshold) with their arcs, %zu more arcs under %g %% (--edge-threshold)\\l",
		       hidden_nodes, opt->node_threshold, hidden_arcs,
		       opt->edge_threshold);
	printf("\";\n\tlabelloc=t;\n\tfontname=\"Helvetica\";\n");
}

int export_dot(struct profile *prof, const struct gprof_options *opt)
{
	size_t i, hidden_nodes = 0, hidden_arcs = 0;
	unsigned int m;

	for (i = 0; i < prof->symtab.len; i++) {
		struct sym *s = &prof->symtab.base[i];
		struct arc *a;

		if (!shown(prof, opt, s))
			continue;
		hidden_nodes += !node_kept(prof, opt, s);
		/* Arcs of hidden functions go with them, unsaid. */
		for (a = s->cg.children; a; a = a->next_child)
			hidden_arcs += node_kept(prof, opt, s) &&
				       node_kept(prof, opt, a->child) &&
				       !arc_kept(prof, opt, a) && a->child != s;
	}
	printf("digraph gprof {\n");
	title(prof, opt, hidden_nodes, hidden_arcs);
	printf("\tnode [shape=box, style=filled, fontname=\"Helvetica\", fontcolor=white];\n");
	printf("\tedge [fontname=\"Helvetica\", fontsize=10];\n");
	if (prof->multi_module) {
		for (m = 0; m < prof->nmodules; m++) {
			bool any = false;

			for (i = 0; i < prof->symtab.len; i++) {
				if (prof->symtab.base[i].module != m ||
				    !node_kept(prof, opt,
					       &prof->symtab.base[i]))
					continue;
				if (!any) {
					printf("\tsubgraph cluster_%u {\n\t\tlabel=\"", m);
					escaped(module_basename(
						&prof->modules[m]));
					printf("\";\n\t\tstyle=rounded;\n\t\tcolor=gray50;\n");
					any = true;
				}
				node(prof, opt, i, "\t\t");
			}
			if (any)
				printf("\t}\n");
		}
	} else {
		for (i = 0; i < prof->symtab.len; i++)
			if (node_kept(prof, opt, &prof->symtab.base[i]))
				node(prof, opt, i, "\t");
	}
	for (i = 0; i < prof->symtab.len; i++) {
		struct arc *a;

		if (!node_kept(prof, opt, &prof->symtab.base[i]))
			continue;
		for (a = prof->symtab.base[i].cg.children; a; a = a->next_child)
			if (arc_kept(prof, opt, a))
				arc(prof, i, a);
	}
	printf("}\n");
	return 0;
}

static pid_t render_pid = -1;

/* Whether @prog is an executable file in a directory of $PATH. */
static bool in_path(const char *prog)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[4096];

	for (p = path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - p),
			 end > p ? p : ".", prog);
		if (!access(buf, X_OK))
			return true;
	}
	return false;
}

int render_start(const struct gprof_options *opt, char *err, size_t errlen)
{
	int fd[2];

	if (!opt->render_format)
		return 0;
	/* One word of letters, digits and ':' (dot's -Tsvg:cairo). */
	if (!*opt->render_format ||
	    strspn(opt->render_format,
		   "abcdefghijklmnopqrstuvwxyz0123456789:") !=
	    strlen(opt->render_format))
		return errorf(err, errlen,
			      "--render: `%s' is not a Graphviz output format (svg, png, pdf...)",
			      opt->render_format);
	if (!in_path("dot"))
		return errorf(err, errlen,
			      "--render=%s: Graphviz `dot' is not installed (not in PATH); install graphviz, or leave --render out for the dot source",
			      opt->render_format);
	fflush(stdout);
	if (pipe(fd))
		return errorf(err, errlen, "--render: pipe: %s",
			      strerror(errno));
	render_pid = fork();
	if (render_pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return errorf(err, errlen, "--render: fork: %s",
			      strerror(errno));
	}
	if (render_pid == 0) {
		char format[64];

		snprintf(format, sizeof(format), "-T%s", opt->render_format);
		dup2(fd[0], 0);
		close(fd[0]);
		close(fd[1]);
		execlp("dot", "dot", format, (char *)NULL);
		fprintf(stderr, "%s: --render: dot: %s\n", opt->whoami,
			strerror(errno));
		_exit(127);
	}
	close(fd[0]);
	if (dup2(fd[1], 1) < 0) {
		/* dot reads nothing and ends; stdout is as it was. */
		close(fd[1]);
		waitpid(render_pid, NULL, 0);
		render_pid = -1;
		return errorf(err, errlen, "--render: dup2: %s",
			      strerror(errno));
	}
	close(fd[1]);
	return 0;
}

int render_finish(const struct gprof_options *opt, char *err, size_t errlen)
{
	int status, write_errno = 0;

	if (render_pid < 0)
		return 0;
	if (fflush(stdout) || ferror(stdout))
		write_errno = errno ? errno : EIO;
	/* dot sees the end of its input and finishes, even after an error. */
	close(1);
	if (waitpid(render_pid, &status, 0) < 0) {
		render_pid = -1;
		return errorf(err, errlen,
			      "--render: waiting for dot: %s",
			      strerror(errno));
	}
	render_pid = -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return errorf(err, errlen,
			      "--render=%s: dot failed (status %d); its message is above",
			      opt->render_format, WIFEXITED(status) ?
			      WEXITSTATUS(status) : 128 + WTERMSIG(status));
	if (write_errno)
		return errorf(err, errlen,
			      "--render: writing to dot: %s",
			      strerror(write_errno));
	return 0;
}
