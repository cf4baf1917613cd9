/*
 * meas_text.c - text helpers shared by the measurement parsers: file
 * reading with a size limit, binary refusal, a line walker that hides CRLF,
 * a UTF-8 BOM and ANSI colour codes, blank splitting and strict numbers.
 */
#include "meas_int.h"
#include "input.h"
#include "meas.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int meas_read_file(const char *path, char **buf, size_t *len,
		   struct plumb_err *err)
{
	return input_read(path, buf, len, err);
}

int meas_check_text(const char *buf, size_t len, const char *fname,
		    struct plumb_err *err)
{
	const char *nul;

	if (len > MEAS_MAX_INPUT)
		return plumb_err_set(err, PLUMB_EINPUT, fname, 0, 0,
				     "input is larger than %u MiB; give one tool's "
				     "output, not a whole log archive",
				     MEAS_MAX_INPUT >> 20);
	nul = len ? memchr(buf, '\0', len) : NULL;
	if (nul) {
		int line = 1, col = 1;
		const char *p;
		for (p = buf; p < nul; p++) {
			if (*p == '\n') {
				line++;
				col = 1;
			} else {
				col++;
			}
		}
		return plumb_err_set(err, PLUMB_EINPUT, fname, line, col,
				     "binary data (NUL byte at offset %zu); expected "
				     "a text file", (size_t)(nul - buf));
	}
	return 0;
}

void meas_lines_init(struct meas_lines *l, const char *buf, size_t len,
		     int strip_ansi)
{
	memset(l, 0, sizeof(*l));
	l->p = buf;
	l->end = buf + len;
	l->strip_ansi = strip_ansi;
	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		l->p += 3;
}

int meas_lines_next(struct meas_lines *l, char **line)
{
	const char *s = l->p, *e;
	size_t n, i, o = 0;

	if (s >= l->end)
		return 0;
	e = memchr(s, '\n', (size_t)(l->end - s));
	if (!e)
		e = l->end;
	n = (size_t)(e - s);
	l->p = e < l->end ? e + 1 : e;
	l->lineno++;
	if (n + 1 > l->cap) {
		size_t ncap = n + 1 < 256 ? 256 : n + 1;
		char *nb = realloc(l->buf, ncap);
		if (!nb)
			return -1;
		l->buf = nb;
		l->cap = ncap;
	}
	for (i = 0; i < n; i++) {
		if (l->strip_ansi && s[i] == '\x1b') {
			/* CSI: ESC [ parameters intermediates final (0x40-0x7e);
			 * any other ESC x: drop both bytes. */
			if (i + 1 < n && s[i + 1] == '[') {
				i += 2;
				while (i < n && !(s[i] >= 0x40 && s[i] <= 0x7e))
					i++;
			} else {
				i++;
			}
			continue;
		}
		l->buf[o++] = s[i];
	}
	while (o > 0 && l->buf[o - 1] == '\r')
		o--;
	l->buf[o] = '\0';
	*line = l->buf;
	return 1;
}

void meas_lines_release(struct meas_lines *l)
{
	free(l->buf);
	l->buf = NULL;
	l->cap = 0;
}

int meas_split(const char *line, struct meas_tok *tok, int max)
{
	int n = 0;
	const char *p = line;

	for (;;) {
		const char *s;
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' ||
		       *p == '\f')
			p++;
		if (!*p)
			break;
		s = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\v' &&
		       *p != '\f')
			p++;
		if (n < max) {
			tok[n].s = s;
			tok[n].len = (int)(p - s);
			tok[n].col = (int)(s - line) + 1;
		}
		n++;
	}
	return n;
}

int meas_tok_is(const struct meas_tok *t, const char *word)
{
	size_t n = strlen(word);
	return (size_t)t->len == n && memcmp(t->s, word, n) == 0;
}

int meas_tok_icase(const struct meas_tok *t, const char *word)
{
	size_t n = strlen(word), i;

	if ((size_t)t->len != n)
		return 0;
	for (i = 0; i < n; i++)
		if (tolower((unsigned char)t->s[i]) != tolower((unsigned char)word[i]))
			return 0;
	return 1;
}

/* Copy s[0..len) into a small NUL-terminated buffer; -1 when too long. */
static int tmp_copy(char *dst, size_t n, const char *s, size_t len)
{
	if (len == 0 || len >= n)
		return -1;
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

/* "nan", "inf", "infinity" in any case (sign already skipped). */
static int is_nonfinite_word(const char *w)
{
	static const char *const words[] = { "nan", "inf", "infinity" };
	size_t k;

	for (k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
		size_t i, n = strlen(words[k]);
		if (strlen(w) != n)
			continue;
		for (i = 0; i < n; i++)
			if (tolower((unsigned char)w[i]) != words[k][i])
				break;
		if (i == n)
			return 1;
	}
	return 0;
}

int meas_num_double(const char *s, size_t len, double *out)
{
	char tmp[64], *end;
	double v;
	size_t i;

	if (len >= sizeof(tmp)) {
		/* Too long to be a measurement; still say "out of range" when
		 * it is a run of digits. */
		for (i = 0; i < len; i++)
			if (!isdigit((unsigned char)s[i]) && s[i] != '.')
				return MEAS_NUM_BAD;
		return MEAS_NUM_RANGE;
	}
	if (tmp_copy(tmp, sizeof(tmp), s, len) < 0)
		return MEAS_NUM_BAD;
	/* Plain decimal notation only: strtod would also take hex floats and
	 * words, which no tool prints as a measurement. */
	for (i = 0; i < len; i++) {
		char c = tmp[i];
		if (!(isdigit((unsigned char)c) || c == '.' || c == '-' ||
		      c == '+' || c == 'e' || c == 'E')) {
			const char *w = tmp + (tmp[0] == '-' || tmp[0] == '+');
			return is_nonfinite_word(w) ? MEAS_NUM_NONFINITE : MEAS_NUM_BAD;
		}
	}
	errno = 0;
	v = strtod(tmp, &end);
	if (end == tmp || *end)
		return MEAS_NUM_BAD;
	if (errno == ERANGE && fabs(v) > 1.0)
		return MEAS_NUM_RANGE;
	if (!isfinite(v))
		return MEAS_NUM_RANGE;
	*out = v;
	return MEAS_NUM_OK;
}

int meas_num_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (len > 0 && s[0] == '+')
		i++;
	if (i == len)
		return MEAS_NUM_BAD;
	for (; i < len; i++) {
		unsigned d;
		if (!isdigit((unsigned char)s[i]))
			return MEAS_NUM_BAD;
		d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10) {
			/* finish the scan so "123abc..." still says "not a number" */
			for (i++; i < len; i++)
				if (!isdigit((unsigned char)s[i]))
					return MEAS_NUM_BAD;
			return MEAS_NUM_RANGE;
		}
		v = v * 10 + d;
	}
	*out = v;
	return MEAS_NUM_OK;
}

int meas_num_int(const char *s, size_t len, int *out)
{
	uint64_t v;
	int neg = len > 0 && s[0] == '-';
	int rc = meas_num_u64(s + neg, len - (size_t)neg, &v);

	if (rc == MEAS_NUM_OK && neg && len > 1 && s[1] == '+')
		return MEAS_NUM_BAD;
	if (rc != MEAS_NUM_OK)
		return rc;
	if (v > (uint64_t)INT_MAX + (uint64_t)neg)
		return MEAS_NUM_RANGE;
	*out = neg ? (int)(-(int64_t)v) : (int)v;
	return MEAS_NUM_OK;
}

void meas_copy(char *dst, size_t n, const char *s, size_t len)
{
	if (n == 0)
		return;
	if (len >= n)
		len = n - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}
