#include "results/serialtap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

uint32_t serialtap_crc32(uint32_t crc, const void *data, size_t len)
{
	const unsigned char *p = data;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

size_t serialtap_frame(unsigned long seq, const char *text, size_t len, char *out, size_t cap)
{
	char head[32];
	int hn = snprintf(head, sizeof(head), "%lu:", seq);
	size_t mark = sizeof(SERIALTAP_MARK) - 1, n;
	uint32_t crc;

	/* A line's trailing CR is dropped and any other becomes '?', as the TAP parser would. */
	while (len && text[len - 1] == '\r')
		len--;
	n = mark + (size_t)hn + 9 + len + 1;
	if (n + 1 > cap)
		return 0;
	memcpy(out, SERIALTAP_MARK, mark);
	memcpy(out + mark, head, (size_t)hn);
	for (size_t i = 0; i < len; i++)
		out[mark + (size_t)hn + 9 + i] = text[i] == '\r' || text[i] == '\n' ? '?' : text[i];
	crc = serialtap_crc32(0, head, (size_t)hn);
	crc = serialtap_crc32(crc, out + mark + hn + 9, len);
	snprintf(out + mark + hn, 10, "%08x", crc);
	out[mark + (size_t)hn + 8] = ':';
	out[n - 1] = '\n';
	out[n] = '\0';
	return n;
}

/* The reader: the lines first, then each frame checked and, if broken, mended from those after it. */

struct line {
	const char *s;
	size_t len;
	int used;               /* LINE_TAKEN: a frame or a mended frame's tail; LINE_BROKEN: a frame's head left over */
};

enum { LINE_FREE, LINE_TAKEN, LINE_BROKEN };

struct frame {
	unsigned long seq;
	char *text;
};

/* "SEQ:CRC8:" at s (len bytes): the header's length and its values; 0 if not one. */
static size_t parse_head(const char *s, size_t len, unsigned long *seq, uint32_t *crc, size_t *seq_len)
{
	size_t i = 0;
	unsigned long v = 0;
	uint32_t c = 0;

	while (i < len && i < 19 && s[i] >= '0' && s[i] <= '9')
		v = v * 10 + (unsigned long)(s[i++] - '0');
	if (!i || i >= len || s[i] != ':' || len < i + 10 || s[i + 9] != ':')
		return 0;
	*seq_len = i + 1;
	for (size_t k = i + 1; k < i + 9; k++) {
		char h = s[k];

		if (h >= '0' && h <= '9')
			c = c << 4 | (uint32_t)(h - '0');
		else if (h >= 'a' && h <= 'f')
			c = c << 4 | (uint32_t)(h - 'a' + 10);
		else
			return 0;
	}
	*seq = v;
	*crc = c;
	return i + 10;
}

/* s (after the mark) is a whole frame: its seq and text. */
static int whole(const char *s, size_t len, unsigned long *seq, const char **text, size_t *text_len)
{
	uint32_t crc;
	size_t seq_len, h = parse_head(s, len, seq, &crc, &seq_len);

	if (!h)
		return 0;
	if (serialtap_crc32(serialtap_crc32(0, s, seq_len), s + h, len - h) != crc)
		return 0;
	*text = s + h;
	*text_len = len - h;
	return 1;
}

/*
 * The broken frame b (after the mark) joined with tail t at some cut of b:
 * the joined text into out and its seq; 0 when no cut makes the CRC hold.
 */
static int mend(const char *b, size_t blen, const char *t, size_t tlen, unsigned long *seq, struct buf *out)
{
	uint32_t crc, run;
	size_t seq_len, h = parse_head(b, blen, seq, &crc, &seq_len);

	if (h) {   /* the header is whole: cut in the text */
		run = serialtap_crc32(0, b, seq_len);
		for (size_t k = h; k <= blen; k++) {
			if (serialtap_crc32(run, t, tlen) == crc) {
				buf_add(out, b + h, k - h);
				buf_add(out, t, tlen);
				return 1;
			}
			if (k < blen)
				run = serialtap_crc32(run, b + k, 1);
		}
		return 0;
	}
	/* The kernel's text fell inside the header: try each cut there (a few dozen). */
	for (size_t k = 0; k <= blen && k < 32; k++) {
		struct buf joined = BUF_INIT;
		const char *text;
		size_t text_len;
		int ok;

		buf_add(&joined, b, k);
		buf_add(&joined, t, tlen);
		ok = whole(buf_str(&joined), joined.len, seq, &text, &text_len);
		if (ok)
			buf_add(out, text, text_len);
		buf_free(&joined);
		if (ok)
			return 1;
	}
	return 0;
}

static int by_seq(const void *a, const void *b)
{
	const struct frame *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

static void add_frame(struct frame **f, int *n, int *cap, unsigned long seq, const char *text, size_t len)
{
	if (*n == *cap)
		*f = xrealloc(*f, (size_t)(*cap = *cap ? 2 * *cap : 256) * sizeof(**f));
	(*f)[*n].seq = seq;
	(*f)[*n].text = xmalloc(len + 1);
	memcpy((*f)[*n].text, text, len);
	(*f)[*n].text[len] = '\0';
	(*n)++;
}

void serialtap_extract(const char *console, size_t len, struct buf *tap, struct serialtap_stats *st)
{
	struct line *lines = NULL;
	struct frame *frames = NULL;
	int nr = 0, cap = 0, nf = 0, fcap = 0;
	size_t mark = sizeof(SERIALTAP_MARK) - 1;

	memset(st, 0, sizeof(*st));
	st->gap_at = -1;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(console + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - console) : len, l = end - i;

		while (l && console[i + l - 1] == '\r')
			l--;
		if (nr == cap)
			lines = xrealloc(lines, (size_t)(cap = cap ? 2 * cap : 1024) * sizeof(*lines));
		lines[nr++] = (struct line){ console + i, l, 0 };
		i = end + 1;
	}
	for (int i = 0; i < nr; i++) {
		const char *m, *s, *text;
		size_t slen, text_len;
		unsigned long seq;

		if (lines[i].used || !lines[i].len)
			continue;
		m = memmem(lines[i].s, lines[i].len, SERIALTAP_MARK, mark);
		if (!m)
			continue;
		s = m + mark;
		slen = lines[i].len - (size_t)(s - lines[i].s);
		lines[i].used = LINE_TAKEN;
		if (whole(s, slen, &seq, &text, &text_len)) {
			add_frame(&frames, &nf, &fcap, seq, text, text_len);
			continue;
		}
		int mended = 0;

		for (int j = i + 1; j < nr && j <= i + SERIALTAP_MEND_LINES && !mended; j++) {
			struct buf joined = BUF_INIT;

			if (lines[j].used)
				continue;
			if (mend(s, slen, lines[j].s, lines[j].len, &seq, &joined)) {
				add_frame(&frames, &nf, &fcap, seq, buf_str(&joined), joined.len);
				lines[j].used = LINE_TAKEN;
				mended = 1;
				st->mended++;
			}
			buf_free(&joined);
		}
		if (!mended)   /* its mark may be a test's or the kernel's text after a split mark */
			lines[i].used = LINE_BROKEN;
		st->broken += !mended;
	}
	/*
	 * The kernel's text inside the mark itself: "NLT" + its lines, then
	 * "AP:SEQ:..." on a line of its own.  The head is where the frame began,
	 * at the start of a line.
	 */
	for (int j = 0; j < nr; j++) {
		for (size_t k = 1; k < mark && lines[j].used != LINE_TAKEN; k++) {
			struct buf joined = BUF_INIT;
			const char *text;
			size_t text_len;
			unsigned long seq;

			if (lines[j].len < mark - k || memcmp(lines[j].s, &SERIALTAP_MARK[k], mark - k))
				continue;
			buf_add(&joined, lines[j].s + (mark - k), lines[j].len - (mark - k));
			if (!whole(buf_str(&joined), joined.len, &seq, &text, &text_len)) {
				buf_free(&joined);
				continue;
			}
			for (int i = j - 1; i >= 0 && i >= j - SERIALTAP_MEND_LINES; i--)
				if (lines[i].used != LINE_TAKEN && lines[i].len >= k && !memcmp(lines[i].s, SERIALTAP_MARK, k) &&
				    (lines[i].len < mark || memcmp(lines[i].s, SERIALTAP_MARK, mark))) {
					add_frame(&frames, &nf, &fcap, seq, text, text_len);
					st->broken -= lines[i].used == LINE_BROKEN;
					st->broken -= lines[j].used == LINE_BROKEN;
					lines[i].used = lines[j].used = LINE_TAKEN;
					st->mended++;
					break;
				}
			buf_free(&joined);
		}
	}
	qsort(frames, (size_t)nf, sizeof(*frames), by_seq);
	for (int i = 0, expect = 0; i < nf; i++) {
		if (i && frames[i].seq == frames[i - 1].seq) {
			st->duplicates++;
			continue;
		}
		if (st->gap_at < 0 && frames[i].seq != (unsigned long)expect)
			st->gap_at = expect;
		if (st->gap_at < 0) {
			buf_addf(tap, "%s\n", frames[i].text);
			st->frames++;
			expect++;
		}
	}
	for (int i = 0; i < nf; i++)
		free(frames[i].text);
	free(frames);
	free(lines);
}
