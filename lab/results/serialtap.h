/*
 * serialtap: the TAP stream carried on a serial console, both directions.
 *
 * A guest without its own TAP channel (no virtio console: a board, a LAVA
 * job, `numalab run --tap-channel serial`) writes each TAP line to the
 * console framed as
 *
 *   NLTAP:SEQ:CRC:TEXT
 *
 * SEQ counting from 0 in decimal, CRC the CRC-32 (IEEE, as zlib) of
 * "SEQ:TEXT" in 8 lowercase hex digits.  The console also carries the
 * kernel's messages, and the 8250 driver writes a printk synchronously
 * between two bytes of a user's line: "NLTAP:3:…:ok 1 fo[ 2.1] msg\r\no bar".
 * The reader therefore takes a frame only when its CRC holds; a frame that
 * fails is mended by joining its head to a later unframed line (the
 * kernel's text cut out at every possible point) until the CRC holds, and
 * a SEQ seen before (a line written twice) is dropped.  What cannot be
 * mended is counted as lost, and the stream ends at the first gap in SEQ,
 * since TAP after a hole would be judged on part of its results.
 *
 * The writer half is plain C without the lab's base (it is linked into the
 * guest's /init): serialtap_frame() only.
 */
#ifndef LAB_SERIALTAP_H
#define LAB_SERIALTAP_H

#include <stddef.h>
#include <stdint.h>

#define SERIALTAP_MARK "NLTAP:"
/* The guest's line before its first frame: where a reader (LAVA's boot action) may start. */
#define SERIALTAP_START "numalab-init: serial TAP follows"
/* After the plan: the leaves' LAVA signals are over, the measurements' follow (images/init/serial.c). */
#define SERIALTAP_LEAVES_END "numalab-init: LAVA test cases done"
#define SERIALTAP_MEASUREMENTS "numalab-init: LAVA measurements follow"
/* The most lines after a broken frame that may hold its tail (an oops is ~60). */
#define SERIALTAP_MEND_LINES 200

uint32_t serialtap_crc32(uint32_t crc, const void *data, size_t len);

/*
 * The frame of TAP line number seq (text without its newline) into out,
 * with a trailing "\n"; its length, or 0 when cap is too small.
 */
size_t serialtap_frame(unsigned long seq, const char *text, size_t len, char *out, size_t cap);

struct buf;

struct serialtap_stats {
	int frames;          /* lines taken, in order */
	int mended;          /* of those, joined across a kernel message */
	int duplicates;      /* a SEQ seen before, dropped */
	int broken;          /* a frame neither whole nor mendable */
	int gap_at;          /* the first missing SEQ (the stream stops there); -1 none */
};

/*
 * The TAP lines framed in console (len bytes, any bytes) appended to tap,
 * one per line with "\n", in SEQ order up to the first gap.
 */
void serialtap_extract(const char *console, size_t len, struct buf *tap, struct serialtap_stats *st);

#endif
