/*
 * yout.c - the YAML writer (yout.h) over libyaml's emitter.
 */
#include "yout.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void emit(struct yout *y, yaml_event_t *ev, int ok)
{
	if (!ok) {
		y->bad = 1;
		return;
	}
	if (y->bad) {
		yaml_event_delete(ev);   /* not handed to the emitter: ours to free */
		return;
	}
	if (!yaml_emitter_emit(&y->e, ev))
		y->bad = 1;
}

void yout_begin(struct yout *y, FILE *f)
{
	yaml_event_t ev;

	memset(y, 0, sizeof(*y));
	y->f = f;
	if (!yaml_emitter_initialize(&y->e)) {
		y->bad = 1;
		return;
	}
	y->live = 1;
	yaml_emitter_set_output_file(&y->e, f);
	yaml_emitter_set_width(&y->e, -1);       /* a flow entry stays on one line */
	yaml_emitter_set_unicode(&y->e, 1);
	yaml_emitter_set_indent(&y->e, 2);
	emit(y, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
	emit(y, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
}

int yout_end(struct yout *y, const char *path, struct plumb_err *err)
{
	yaml_event_t ev;

	if (y->live) {
		emit(y, &ev, yaml_document_end_event_initialize(&ev, 1));
		emit(y, &ev, yaml_stream_end_event_initialize(&ev));
		if (!y->bad && !yaml_emitter_flush(&y->e))
			y->bad = 1;
		yaml_emitter_delete(&y->e);
		y->live = 0;
	}
	if (y->bad && !ferror(y->f))
		return plumb_err_set(err, PLUMB_ERUNTIME, path, 0, 0,
				     "cannot write the YAML (libyaml emitter)");
	if (fflush(y->f) != 0 || ferror(y->f))
		return plumb_err_set(err, PLUMB_EIO, path, 0, 0, "cannot write: %s",
				     strerror(errno));
	return 0;
}

/* Length of the valid UTF-8 sequence at p (1-4), or 0. */
static int utf8_len(const unsigned char *p)
{
	int n, i;

	if (p[0] < 0x80)
		return 1;
	n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2 : 0;
	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void yout_scalar(struct yout *y, const char *v, int quoted)
{
	const unsigned char *p = (const unsigned char *)(v ? v : "");
	yaml_char_t small[256], *buf = small;
	size_t len = strlen((const char *)p), n = 0;
	yaml_event_t ev;
	int ok, k;

	if (y->bad)
		return;
	if (len >= sizeof(small) && !(buf = malloc(len + 1))) {
		y->bad = 1;
		return;
	}
	/* a '?' is never longer than what it replaces: len + 1 bytes suffice */
	while (*p) {
		if ((k = utf8_len(p)) == 0) {
			buf[n++] = '?';
			p++;
			continue;
		}
		memcpy(buf + n, p, (size_t)k);
		n += (size_t)k;
		p += k;
	}
	buf[n] = '\0';
	ok = yaml_scalar_event_initialize(&ev, NULL, NULL, buf, (int)n, 1, 1,
					  quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
						 : YAML_PLAIN_SCALAR_STYLE);
	emit(y, &ev, ok);   /* the event holds a copy of buf */
	if (buf != small)
		free(buf);
}

void yout_fmt(struct yout *y, const char *fmt, ...)
{
	char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	yout_scalar(y, buf, 0);
}

void yout_map(struct yout *y, int flow)
{
	yaml_event_t ev;
	emit(y, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, flow ?
			YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE));
}

void yout_map_end(struct yout *y)
{
	yaml_event_t ev;
	emit(y, &ev, yaml_mapping_end_event_initialize(&ev));
}

void yout_seq(struct yout *y, int flow)
{
	yaml_event_t ev;
	emit(y, &ev, yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, flow ?
			YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE));
}

void yout_seq_end(struct yout *y)
{
	yaml_event_t ev;
	emit(y, &ev, yaml_sequence_end_event_initialize(&ev));
}
