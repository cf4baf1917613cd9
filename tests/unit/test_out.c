/*
 * test_out.c - io/out.h's escapers, io/err.h's terminal-safe copy and
 * io/input.h's limit, byte for byte.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "fixtures.h"
#include "input.h"
#include "out.h"

void suite_out(void);

/* What fn(f, s) writes, in a static buffer. */
static const char *written(void (*fn)(FILE *, const char *), const char *s)
{
	static char out[1024];
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fn(f, s);
	fclose(f);
	snprintf(out, sizeof(out), "%s", mem);
	free(mem);
	return out;
}

static void test_xml(void)
{
	EXPECT_STR(written(out_xml, "a<b>&\"c'\x01\x7f\td"), "a&lt;b&gt;&amp;&quot;c&apos;\td");
	EXPECT_STR(written(out_xml, "0000:01:00.0"), "0000:01:00.0");
	/* a comment's text never holds "--" nor ends in '-' */
	EXPECT_STR(written(out_xml_comment, "x --> <y/>"), "x - -> <y/>");
	EXPECT_STR(written(out_xml_comment, "a---b-"), "a- - -b- ");
	EXPECT_STR(written(out_xml_comment, "-\x01-\x1b"), "- - ");
	EXPECT_STR(written(out_quoted, "a\"b\\c\nd"), "\"a\\\"b\\\\cd\"");
}

static void test_safe(void)
{
	char b[64];
	char big[600];

	EXPECT_INT(plumb_err_safe(b, sizeof(b), "plain text", 100), 10);
	EXPECT_STR(b, "plain text");
	/* ESC, BEL, DEL, a C1 CSI (U+009B), a stray continuation byte */
	plumb_err_safe(b, sizeof(b), "a\x1b]0;t\x07" "b\x7f" "c\xc2\x9b" "d\x80" "e", 100);
	EXPECT_STR(b, "a?]0;t?b?c??d?e");
	/* valid UTF-8 stays, one character each */
	EXPECT_INT(plumb_err_safe(b, sizeof(b), "caf\xc3\xa9 \xe2\x86\x92", 100), 6);
	EXPECT_STR(b, "caf\xc3\xa9 \xe2\x86\x92");
	/* overlong and surrogate forms are not text */
	plumb_err_safe(b, sizeof(b), "\xc0\xaf" "\xed\xa0\x80", 100);
	EXPECT_STR(b, "?????");
	/* cut after max characters */
	EXPECT_INT(plumb_err_safe(b, sizeof(b), "abcdefgh", 5), 5);
	EXPECT_STR(b, "abcde...");
	EXPECT_INT(plumb_err_safe(b, sizeof(b), "abcde", 5), 5);
	EXPECT_STR(b, "abcde");
	/* never past the buffer */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	plumb_err_safe(b, sizeof(b), big, 1000);
	EXPECT_INT(strlen(b) < sizeof(b), 1);
}

/* A file of exactly the limit is read; one byte more is not. */
static void test_input_limit(void)
{
	char path[] = "/tmp/plumb-input-XXXXXX";
	struct plumb_err e;
	char *buf = NULL;
	size_t len = 0;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(ftruncate(fd, PLUMB_MAX_INPUT) == 0);
	close(fd);
	plumb_err_clear(&e);
	EXPECT_INT(input_read(path, &buf, &len, &e), 0);
	EXPECT_INT(len, PLUMB_MAX_INPUT);
	free(buf);
	EXPECT_INT(input_check(path, &e), 0);
	CU_ASSERT_FATAL(truncate(path, (off_t)PLUMB_MAX_INPUT + 1) == 0);
	EXPECT_INT(input_read(path, &buf, &len, &e), -PLUMB_EINPUT);
	CU_ASSERT_PTR_NULL(buf);
	EXPECT_STR(e.msg, "file is larger than the 16 MiB input limit");
	EXPECT_INT(input_check(path, &e), -PLUMB_EINPUT);
	remove(path);
	EXPECT_INT(input_check("/dev/null", &e), -PLUMB_EINPUT);
	EXPECT_INT(input_check("/", &e), -PLUMB_EIO);
	EXPECT_STR(e.msg, "cannot read: is a directory");
}

/* The temporary file is created exclusively: a planted link or file at its
 * name is an error (EEXIST), and what the link points to is not touched. */
static void test_create(void)
{
	char dir[] = "/tmp/plumb-create-XXXXXX", link[64], victim[64], c = 0;
	int fd;
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(link, sizeof(link), "%s/out.tmp.planted", dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(victim, "w"));
	fputs("v", f);
	fclose(f);
	CU_ASSERT_FATAL(symlink(victim, link) == 0);
	errno = 0;
	fd = out_create(link, 0);
	EXPECT_INT(fd, -1);
	EXPECT_INT(errno, EEXIST);
	if (fd >= 0)
		close(fd);
	/* a dangling link: not created through either */
	remove(victim);
	fd = out_create(link, 0);
	EXPECT_INT(fd, -1);
	EXPECT_INT(access(victim, F_OK), -1);
	if (fd >= 0)
		close(fd);
	remove(link);
	/* a free name is created, once */
	fd = out_create(link, 0600);
	CU_ASSERT(fd >= 0);
	if (fd >= 0) {
		EXPECT_INT(write(fd, "x", 1), 1);
		close(fd);
	}
	EXPECT_INT(out_create(link, 0600), -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(link, "r"));
	EXPECT_INT(fread(&c, 1, 1, f), 1);
	EXPECT_INT(c, 'x');
	fclose(f);
	remove(link);
	rmdir(dir);
}

void suite_out(void)
{
	CU_pSuite s = CU_add_suite("out", NULL, NULL);
	CU_add_test(s, "XML attribute and comment text, JSON strings", test_xml);
	CU_add_test(s, "terminal-safe copies of messages", test_safe);
	CU_add_test(s, "the 16 MiB input limit, to the byte", test_input_limit);
	CU_add_test(s, "temporary files created exclusively, never through a link", test_create);
}
