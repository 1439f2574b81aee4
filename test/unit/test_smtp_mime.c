// SPDX-License-Identifier: GPL-2.0-only
/*
 * SMTP's MIME decoder (userspace/applayer/smtp/mime.c) and file.data in
 * smtp rules: headers unfolded, nested multiparts, base64 and
 * quoted-printable attachments decoded whatever the segments' cuts (and
 * their sha256), every
 * prefix of a mail safe, the limits counted; through the worker a
 * file.data rule matches an attachment's decoded bytes, never its base64
 * text.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "applayer.h"
#include "detect_helpers.h"
#include "mime.h"

/* A mail as DATA sends it (dot-stuffed), up to but without its lone ".". */
static const char mail[] = "From: a@example.org\r\n"
			   "Subject: test\r\n"
			   "MIME-Version: 1.0\r\n"
			   "Content-Type: multipart/mixed;\r\n"
			   " boundary=\"outer\"\r\n"
			   "\r\n"
			   "preamble\r\n"
			   "--outer\r\n"
			   "Content-Type: multipart/alternative; boundary=inner\r\n"
			   "\r\n"
			   "--inner\r\n"
			   "Content-Type: text/plain\r\n"
			   "\r\n"
			   "hello\r\n"
			   "--inner\r\n"
			   "Content-Type: text/html; charset=utf-8\r\n"
			   "Content-Transfer-Encoding: quoted-printable\r\n"
			   "\r\n"
			   "<p>caf=C3=A9</p>\r\n"
			   "--inner--\r\n"
			   "--outer\r\n"
			   "Content-Type: application/octet-stream; name=\"x.bin\"\r\n"
			   "Content-Disposition: attachment;\r\n"
			   "\tfilename=\"report.pdf\"\r\n"
			   "Content-Transfer-Encoding: base64\r\n"
			   "\r\n"
			   "c2VjcmV0IG\r\n"
			   "F0dGFjaG1lbnQgcGF5bG9hZAo=\r\n"
			   "--outer\r\n"
			   "Content-Type: text/plain; name=\"notes.txt\"\r\n"
			   "Content-Transfer-Encoding: Quoted-Printable\r\n"
			   "\r\n"
			   "line one=0D=0Aline=\r\n"
			   " two=3D  \r\n"
			   ".. dotted\r\n"
			   "--outer--\r\n"
			   "epilogue\r\n";

static const char pdf[] = "secret attachment payload\n";
static const char notes[] = "line one\r\nline two=\r\n. dotted";

static void expect_files(const struct mk_smtp_mime *m, const char *what)
{
	const struct mk_smtp_file *f;

	cr_assert_eq(mk_smtp_mime_nfiles(m), 2, "%s: %u files", what, mk_smtp_mime_nfiles(m));
	f = mk_smtp_mime_file(m, 0);
	cr_assert_str_eq(f->name, "report.pdf", "%s", what);
	cr_assert_eq(f->len, strlen(pdf), "%s: %u bytes", what, f->len);
	cr_assert(!memcmp(f->data, pdf, f->len), "%s", what);
	cr_assert(f->complete && !f->truncated, "%s", what);
	cr_assert_str_eq(f->sha256,
			 "6e991d60e1906aa593c2af700e3225fcbf8423380ed7683391fa0df2e46cffa9", "%s",
			 what);
	f = mk_smtp_mime_file(m, 1);
	cr_assert_str_eq(f->name, "notes.txt", "%s", what);
	cr_assert_eq(f->len, strlen(notes), "%s: %u bytes %.*s", what, f->len, (int)f->len,
		     f->data);
	cr_assert(!memcmp(f->data, notes, f->len), "%s", what);
	cr_assert_str_eq(f->sha256,
			 "62f5d22d079851ebae545f5cbe143d5a4785031bf7a6e05bed2b629e341cc209", "%s",
			 what);
	cr_assert_null(mk_smtp_mime_file(m, 2));
}

Test(smtp_mime, mail_split_at_every_byte)
{
	uint64_t cnt[MK_APP_CNT_MAX] = { 0 };
	uint32_t n = (uint32_t)strlen(mail), cut, i;
	struct mk_smtp_mime *m;
	char what[32];

	for (cut = 0; cut <= n; cut++) {
		m = mk_smtp_mime_new(100 << 10, cnt, 1, 1);
		mk_smtp_mime_feed(m, (const uint8_t *)mail, cut);
		mk_smtp_mime_feed(m, (const uint8_t *)mail + cut, n - cut);
		mk_smtp_mime_feed(m, (const uint8_t *)".\r", 2);
		mk_smtp_mime_end(m, 0);
		snprintf(what, sizeof(what), "cut %u", cut);
		expect_files(m, what);
		mk_smtp_mime_free(m);
	}
	/* a byte at a time */
	m = mk_smtp_mime_new(100 << 10, cnt, 1, 1);
	for (i = 0; i < n; i++)
		mk_smtp_mime_feed(m, (const uint8_t *)mail + i, 1);
	mk_smtp_mime_end(m, 0);
	expect_files(m, "bytewise");
	mk_smtp_mime_free(m);
	cr_assert_eq(cnt[MK_APP_CNT_SMTP_MIME_FILES], 2 * (n + 2ull));
	cr_assert_eq(cnt[MK_APP_CNT_SMTP_MIME_LIMIT], 0);
}

/*
 * Every prefix of the mail, ended there: what is decoded is a prefix of the
 * whole when the cut line is dropped (it may be garbage when kept).
 */
Test(smtp_mime, truncated_mail)
{
	uint64_t cnt[MK_APP_CNT_MAX] = { 0 };
	uint32_t n = (uint32_t)strlen(mail), cut;
	const struct mk_smtp_file *f;
	struct mk_smtp_mime *m;

	for (cut = 0; cut < n; cut++) {
		m = mk_smtp_mime_new(100 << 10, cnt, 1, 1);
		mk_smtp_mime_feed(m, (const uint8_t *)mail, cut);
		mk_smtp_mime_end(m, cut & 1);
		cr_assert_leq(mk_smtp_mime_nfiles(m), 2);
		if (cut & 1) {
			mk_smtp_mime_free(m);
			continue;
		}
		if ((f = mk_smtp_mime_file(m, 0))) {
			cr_assert_leq(f->len, strlen(pdf));
			cr_assert(!f->len || !memcmp(f->data, pdf, f->len), "cut %u", cut);
		}
		if ((f = mk_smtp_mime_file(m, 1))) {
			cr_assert_leq(f->len, strlen(notes));
			cr_assert(!f->len || !memcmp(f->data, notes, f->len), "cut %u", cut);
		}
		mk_smtp_mime_free(m);
	}
}

/* The mail's limit cuts the files (counted once each); their sizes stay whole. */
Test(smtp_mime, content_limit)
{
	uint64_t cnt[MK_APP_CNT_MAX] = { 0 };
	struct mk_smtp_mime *m = mk_smtp_mime_new(10, cnt, 1, 1);

	mk_smtp_mime_feed(m, (const uint8_t *)mail, (uint32_t)strlen(mail));
	mk_smtp_mime_end(m, 0);
	cr_assert_eq(mk_smtp_mime_nfiles(m), 2);
	cr_assert_eq(mk_smtp_mime_file(m, 0)->len, 10);
	cr_assert(!memcmp(mk_smtp_mime_file(m, 0)->data, pdf, 10));
	cr_assert_eq(mk_smtp_mime_file(m, 0)->size, strlen(pdf));
	cr_assert_eq(mk_smtp_mime_file(m, 1)->len, 0);
	cr_assert_eq(mk_smtp_mime_file(m, 1)->size, strlen(notes));
	cr_assert(mk_smtp_mime_file(m, 0)->truncated && mk_smtp_mime_file(m, 1)->truncated);
	cr_assert_eq(cnt[MK_APP_CNT_SMTP_MIME_LIMIT], 2);
	/* the digest covers every decoded byte, kept or not */
	cr_assert_str_eq(mk_smtp_mime_file(m, 0)->sha256,
			 "6e991d60e1906aa593c2af700e3225fcbf8423380ed7683391fa0df2e46cffa9");
	mk_smtp_mime_free(m);
}

/* A gap: the cut line is dropped, the file has gaps and no digest; the next part is whole. */
Test(smtp_mime, gap)
{
	uint64_t cnt[MK_APP_CNT_MAX] = { 0 };
	struct mk_smtp_mime *m = mk_smtp_mime_new(100 << 10, cnt, 1, 1);
	const char *at = strstr(mail, "F0dGFj");

	/* lost: from the second base64 line's 4th byte to its 10th */
	mk_smtp_mime_feed(m, (const uint8_t *)mail, (uint32_t)(at + 3 - mail));
	mk_smtp_mime_gap(m);
	mk_smtp_mime_feed(m, (const uint8_t *)at + 10, (uint32_t)strlen(at + 10));
	mk_smtp_mime_end(m, 0);
	cr_assert_eq(mk_smtp_mime_nfiles(m), 2);
	cr_assert(mk_smtp_mime_file(m, 0)->gaps);
	cr_assert_str_eq(mk_smtp_mime_file(m, 0)->sha256, "");
	cr_assert_eq(mk_smtp_mime_file(m, 0)->len, 6, "%u", mk_smtp_mime_file(m, 0)->len);
	cr_assert(!memcmp(mk_smtp_mime_file(m, 0)->data, "secret", 6));
	cr_assert(!mk_smtp_mime_file(m, 1)->gaps);
	cr_assert_eq(mk_smtp_mime_file(m, 1)->len, strlen(notes));
	cr_assert(!memcmp(mk_smtp_mime_file(m, 1)->data, notes, strlen(notes)));
	mk_smtp_mime_free(m);
}

/*
 * A base64 attachment on one line far over MK_SMTP_MIME_LINE_MAX decodes
 * whole; a header over MK_SMTP_MIME_HDR_MAX is cut and counted; files past
 * MK_SMTP_MIME_FILES are counted, not kept; a binary part stays as it is.
 */
Test(smtp_mime, long_lines_and_many_files)
{
	static const char b64[] = "QUJD"; /* "ABC" */
	uint64_t cnt[MK_APP_CNT_MAX] = { 0 };
	struct mk_smtp_mime *m = mk_smtp_mime_new(1 << 20, cnt, 0, 0);
	const char *head = "Content-Type: multipart/mixed; boundary=b\r\n\r\n"
			   "--b\r\nContent-Disposition: attachment; filename=big\r\n"
			   "Content-Transfer-Encoding: base64\r\n\r\n";
	char hdr[3000];
	uint32_t i;

	mk_smtp_mime_feed(m, (const uint8_t *)head, (uint32_t)strlen(head));
	for (i = 0; i < 5000; i++)
		mk_smtp_mime_feed(m, (const uint8_t *)b64, 4);
	memset(hdr, 'x', sizeof(hdr));
	memcpy(hdr, "\r\n--b\r\nX-Long: ", 15);
	mk_smtp_mime_feed(m, (const uint8_t *)hdr, sizeof(hdr));
	mk_smtp_mime_feed(m, (const uint8_t *)"\r\nContent-Disposition: attachment\r\n\r\n", 37);
	mk_smtp_mime_feed(m, (const uint8_t *)".a\0b\r\n", 6);
	for (i = 0; i < MK_SMTP_MIME_FILES + 3; i++) {
		const char *part = "--b\r\nContent-Type: text/plain; name=n\r\n\r\nz\r\n";

		mk_smtp_mime_feed(m, (const uint8_t *)part, (uint32_t)strlen(part));
	}
	mk_smtp_mime_end(m, 1);
	cr_assert_eq(mk_smtp_mime_file(m, 0)->len, 15000);
	for (i = 0; i < 15000; i++)
		cr_assert_eq(mk_smtp_mime_file(m, 0)->data[i], "ABC"[i % 3], "byte %u", i);
	cr_assert_eq(cnt[MK_APP_CNT_SMTP_MIME_HDR_LONG], 1);
	/* not dot-stuffed (BDAT): the dot stays, the NUL byte too */
	cr_assert_eq(mk_smtp_mime_file(m, 1)->len, 4);
	cr_assert(!memcmp(mk_smtp_mime_file(m, 1)->data, ".a\0b", 4));
	cr_assert_eq(mk_smtp_mime_nfiles(m), MK_SMTP_MIME_FILES);
	cr_assert_eq(cnt[MK_APP_CNT_SMTP_MIME_FILES_OVER], 5);
	mk_smtp_mime_free(m);
}

/* Through the worker: file.data in an smtp rule reads the decoded attachments (DATA and BDAT). */
Test(smtp_mime, file_data_rule_fires_on_decoded_attachment)
{
	struct harness h;
	struct conv c;
	char bdat[64];

	cr_assert_eq(h_init_rules(&h, "alert smtp any any -> any any (file.data; "
				      "content:\"attachment payload\"; sid:1;)\n"
				      "alert smtp any any -> any any (file.data; "
				      "content:\"F0dGFjaG1lbnQ\"; sid:2;)\n"
				      "alert smtp any any -> any any (file.data; "
				      "content:\"line two=|0d 0a|. dotted\"; sid:3;)\n"
				      "alert smtp any any -> any any (file.data; "
				      "content:\"hello\"; sid:4;)\n"
				      "alert http any any -> any any (file.data; "
				      "content:\"attachment payload\"; sid:5;)\n"),
		     0);
	conv_open(&c, &h, "10.0.0.1", 40000, "192.0.2.25", 25, T0);
	conv_data(&c, 0, "220 mail.example ESMTP\r\n");
	conv_data(&c, 1, "EHLO client.example\r\n");
	conv_data(&c, 0, "250 mail.example\r\n");
	conv_data(&c, 1, "MAIL FROM:<a@example.org>\r\n");
	conv_data(&c, 0, "250 ok\r\n");
	conv_data(&c, 1, "RCPT TO:<b@example.org>\r\n");
	conv_data(&c, 0, "250 ok\r\n");
	conv_data(&c, 1, "DATA\r\n");
	conv_data(&c, 0, "354 go ahead\r\n");
	conv_data(&c, 1, mail);
	conv_data(&c, 1, ".\r\n");
	conv_data(&c, 0, "250 queued\r\n");
	/* the same by BDAT: not dot-stuffed, so its notes.txt keeps ".. dotted" (no sid 3) */
	conv_data(&c, 1, "MAIL FROM:<a@example.org>\r\n");
	conv_data(&c, 0, "250 ok\r\n");
	conv_data(&c, 1, "RCPT TO:<b@example.org>\r\n");
	conv_data(&c, 0, "250 ok\r\n");
	snprintf(bdat, sizeof(bdat), "BDAT %zu LAST\r\n", strlen(mail));
	conv_data(&c, 1, bdat);
	conv_data(&c, 1, mail);
	conv_data(&c, 0, "250 ok\r\n");
	conv_data(&c, 1, "QUIT\r\n");
	conv_close(&c);
	h_finish(&h);
	cr_expect_eq(h_count(&h, 1), 2, "the base64 attachment, decoded (DATA, BDAT): %u",
		     h_count(&h, 1));
	cr_expect_eq(h_count(&h, 2), 0, "its base64 text: %u", h_count(&h, 2));
	cr_expect_eq(h_count(&h, 3), 1, "the quoted-printable one: %u", h_count(&h, 3));
	cr_expect_eq(h_count(&h, 4), 0, "a body part, not an attachment: %u", h_count(&h, 4));
	cr_expect_eq(h_count(&h, 5), 0, "an http rule: %u", h_count(&h, 5));
	h_free(&h);
}
