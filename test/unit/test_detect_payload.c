// SPDX-License-Identifier: GPL-2.0-only
/*
 * Payload keywords on one buffer (userspace/detect/match/payload.c): content and
 * its modifiers, pcre, isdataat, byte_test, byte_jump, byte_extract, each
 * at and around its boundaries. Buffers are exact-size heap copies.
 */
#include "detect_helpers.h"

#define R(opts) "alert tcp any any -> any any (" opts " sid:1;)"

Test(payload, content_basic_nocase_hex)
{
	cr_assert(payload_match(R("content:\"evil\";"), "an evil thing"));
	cr_assert(!payload_match(R("content:\"evil\";"), "an EVIL thing"));
	cr_assert(payload_match(R("content:\"evil\"; nocase;"), "an EVIL thing"));
	cr_assert(payload_match(R("content:\"|de ad|be|ef|\";"), "x\xde\xad"
								 "be\xef"));
	cr_assert(!payload_match(R("content:\"|de ad|be|ef|\";"), "x\xde\xad"
								  "bE\xef"));
	cr_assert(!payload_match(R("content:\"abc\";"), "ab"));
	cr_assert(!payload_match(R("content:\"a\";"), ""), "an empty payload never matches");
}

Test(payload, depth_offset_boundaries)
{
	cr_assert(payload_match(R("content:\"abc\"; depth:3;"), "abcd"));
	cr_assert(!payload_match(R("content:\"abc\"; depth:3;"), "xabc"), "depth ends at 3");
	cr_assert(payload_match(R("content:\"abc\"; depth:4;"), "xabc"));
	cr_assert(!payload_match(R("content:\"abc\"; offset:1;"), "abc"));
	cr_assert(payload_match(R("content:\"abc\"; offset:1;"), "xabc"));
	/* depth counts from offset */
	cr_assert(payload_match(R("content:\"abc\"; offset:2; depth:3;"), "xxabc"));
	cr_assert(!payload_match(R("content:\"abc\"; offset:2; depth:3;"), "xxxabc"));
	cr_assert(payload_match(R("content:\"abc\"; offset:2; depth:4;"), "xxxabc"));
	cr_assert(!payload_match(R("content:\"abc\"; offset:4;"), "xxxabc"),
		  "offset past the start");
}

Test(payload, distance_within_boundaries)
{
	cr_assert(payload_match(R("content:\"a\"; content:\"b\"; distance:1;"), "axb"));
	cr_assert(!payload_match(R("content:\"a\"; content:\"b\"; distance:1;"), "ab"));
	cr_assert(payload_match(R("content:\"a\"; content:\"b\"; distance:0;"), "ab"));
	cr_assert(!payload_match(R("content:\"a\"; content:\"b\"; distance:0;"), "ba"));
	/* within alone: distance 0; the match ends at most within bytes after */
	cr_assert(payload_match(R("content:\"a\"; content:\"bc\"; within:2;"), "abc"));
	cr_assert(!payload_match(R("content:\"a\"; content:\"bc\"; within:2;"), "axbc"));
	cr_assert(payload_match(R("content:\"a\"; content:\"bc\"; within:3;"), "axbc"));
	/* distance D, within W: starts >= D after, ends <= D + W after */
	cr_assert(payload_match(R("content:\"a\"; content:\"b\"; distance:2; within:1;"), "a..b"));
	cr_assert(!payload_match(R("content:\"a\"; content:\"b\"; distance:2; within:1;"), "a.b"));
	cr_assert(
		!payload_match(R("content:\"a\"; content:\"b\"; distance:2; within:1;"), "a...b"));
	cr_assert(payload_match(R("content:\"a\"; content:\"b\"; distance:2; within:2;"), "a...b"));
	/* negative distance looks back */
	cr_assert(
		payload_match(R("content:\"bc\"; content:\"ab\"; distance:-3; within:2;"), "abc"));
	cr_assert(
		!payload_match(R("content:\"bc\"; content:\"ab\"; distance:-2; within:2;"), "abc"));
}

Test(payload, relative_backtracking_and_independence)
{
	/* the first "a" fails its relative follower; the next "a" is tried */
	cr_assert(payload_match(R("content:\"a\"; content:\"b\"; within:1;"), "a..ab"));
	cr_assert(payload_match(R("content:\"GET\"; content:\"/x\"; distance:1; within:2; "
				  "content:\"HTTP\"; distance:1;"),
				"GET /y HTTP GET /x HTTP/1.1"));
	/* contents without relative modifiers match independently, in any order */
	cr_assert(payload_match(R("content:\"world\"; content:\"hello\";"), "hello world"));
	cr_assert(!payload_match(R("content:\"world\"; content:\"hello\";"), "hello word"));
	/* a budget bounds pathological backtracking: the call returns */
	{
		char buf[3000];

		memset(buf, 'a', sizeof(buf) - 1);
		buf[sizeof(buf) - 1] = '\0';
		payload_match(
			R("content:\"a\"; content:\"a\"; distance:0; content:\"a\"; distance:0; "
			  "content:\"a\"; distance:0; content:\"b\"; distance:0;"),
			buf);
	}
}

Test(payload, negation_startswith_endswith)
{
	cr_assert(payload_match(R("content:!\"evil\";"), "good"));
	cr_assert(!payload_match(R("content:!\"evil\";"), "so evil"));
	cr_assert(payload_match(R("content:\"a\"; content:!\"b\"; within:1;"), "ac"));
	cr_assert(!payload_match(R("content:\"a\"; content:!\"b\"; within:1;"), "ab"));
	cr_assert(payload_match(R("content:\"a\"; content:!\"b\"; within:1;"), "abac"),
		  "a negated relative content lets the previous one move on");
	cr_assert(payload_match(R("content:\"GET\"; startswith;"), "GET /"));
	cr_assert(!payload_match(R("content:\"GET\"; startswith;"), " GET /"));
	cr_assert(payload_match(R("content:\"|0d 0a 0d 0a|\"; endswith;"), "head\r\n\r\n"));
	cr_assert(!payload_match(R("content:\"|0d 0a 0d 0a|\"; endswith;"), "head\r\n\r\nx"));
	cr_assert(payload_match(R("content:\"exact\"; startswith; endswith;"), "exact"));
	cr_assert(!payload_match(R("content:\"exact\"; startswith; endswith;"), "exactly"));
}

Test(payload, stream_positions_and_new_data)
{
	/* offsets count from the stream's first byte: abs_base is the window's offset */
	cr_assert(payload_match_at(R("content:\"abc\"; depth:3;"), "abc", 3, 0, 0));
	cr_assert(!payload_match_at(R("content:\"abc\"; depth:3;"), "abc", 3, 10, 0));
	cr_assert(payload_match_at(R("content:\"abc\"; offset:12; depth:3;"), "xxabc", 5, 10, 0));
	cr_assert(!payload_match_at(R("content:\"abc\"; offset:13;"), "xxabc", 5, 10, 0));
	cr_assert(!payload_match_at(R("content:\"abc\"; startswith;"), "abc", 3, 1, 0));
	cr_assert(!payload_match_at(R("pcre:\"/^abc/\";"), "abc", 3, 1, 0),
		  "^ is the stream start");
	cr_assert(payload_match_at(R("pcre:\"/^abc/m\";"), "x\nabc", 5, 1, 0));
	/* only a match that ends in the new bytes (after min_end) counts */
	cr_assert(payload_match_at(R("content:\"abc\";"), "abcabc", 6, 0, 3));
	cr_assert(!payload_match_at(R("content:\"abc\";"), "abcxyz", 6, 0, 3));
	cr_assert(payload_match_at(R("content:\"abc\";"), "xabcyz", 6, 0, 3),
		  "straddles old and new");
	cr_assert(payload_match_at(R("content:\"old\"; content:\"new\";"), "old new", 7, 0, 4));
	cr_assert(payload_match_at(R("content:\"old\"; content:\"new\";"), "new old", 7, 0, 4),
		  "independent contents: the match ends at the later one");
}

Test(payload, pcre_flags_and_anchors)
{
	cr_assert(payload_match(R("pcre:\"/fo+bar/\";"), "xfooobar"));
	cr_assert(!payload_match(R("pcre:\"/FOO/\";"), "foo"));
	cr_assert(payload_match(R("pcre:\"/FOO/i\";"), "foo"));
	cr_assert(payload_match(R("pcre:\"/^GET/\";"), "GET /"));
	cr_assert(!payload_match(R("pcre:\"/^GET/\";"), " GET /"));
	/* $ also matches before a final newline, unless E */
	cr_assert(payload_match(R("pcre:\"/abc$/\";"), "abc\n"));
	cr_assert(!payload_match(R("pcre:\"/abc$/E\";"), "abc\n"));
	cr_assert(payload_match(R("pcre:\"/a.b/s\";"), "a\nb"));
	cr_assert(!payload_match(R("pcre:\"/a.b/\";"), "a\nb"));
	cr_assert(payload_match(R("pcre:\"/^b/m\";"), "a\nb"));
	cr_assert(payload_match(R("pcre:\"/a b # comment\\n/x\";"), "ab"));
	cr_assert(payload_match(R("pcre:\"/a\\;b/\";"), "a;b"));
	cr_assert(payload_match(R("pcre:!\"/evil/\";"), "good"));
	cr_assert(!payload_match(R("pcre:!\"/evil/\";"), "evil"));
	cr_assert(payload_match(R("pcre:\"/b/A\";"), "b"));
	cr_assert(!payload_match(R("pcre:\"/b/A\";"), "ab"), "A anchors at the start");
}

Test(payload, pcre_relative)
{
	cr_assert(payload_match(R("content:\"user\"; pcre:\"/^\\s+root/R\";"), "user  root"));
	cr_assert(!payload_match(R("content:\"user\"; pcre:\"/^\\s+root/R\";"), "user x root"));
	cr_assert(payload_match(R("content:\"user\"; pcre:\"/^\\s+root/R\";"), "user x user root"),
		  "the content moves on when the relative pcre fails");
	cr_assert(payload_match(R("pcre:\"/a+/\"; content:\"b\"; within:1;"), "aab"));
	cr_assert(payload_match(R("pcre:\"/a/\"; content:\"b\"; within:1;"), "acab"),
		  "the pcre moves on when the relative content fails");
}

Test(payload, isdataat_boundaries)
{
	cr_assert(!payload_match(R("isdataat:5;"), "01234"), "byte 5 does not exist");
	cr_assert(payload_match(R("isdataat:5;"), "012345"));
	cr_assert(payload_match(R("isdataat:!5;"), "01234"));
	cr_assert(payload_match(R("content:\"ab\"; isdataat:2,relative;"), "abcd"));
	cr_assert(!payload_match(R("content:\"ab\"; isdataat:3,relative;"), "abcd"));
	cr_assert(payload_match(R("content:\"cd\"; isdataat:!1,relative;"), "abcd"), "at the end");
	cr_assert(!payload_match(R("content:\"bc\"; isdataat:!1,relative;"), "abcd"));
}

Test(payload, byte_test_operators_and_bounds)
{
	cr_assert(payload_match(R("byte_test:1,=,0x41,0;"), "A"));
	cr_assert(payload_match(R("byte_test:2,=,0x4142,0;"), "AB"));
	cr_assert(payload_match(R("byte_test:2,=,0x4241,0,little;"), "AB"));
	cr_assert(payload_match(R("byte_test:1,<,0x42,0;"), "A"));
	cr_assert(!payload_match(R("byte_test:1,<,0x41,0;"), "A"));
	cr_assert(payload_match(R("byte_test:1,<=,0x41,0;"), "A"));
	cr_assert(payload_match(R("byte_test:1,>=,0x41,0;"), "A"));
	cr_assert(!payload_match(R("byte_test:1,>,0x41,0;"), "A"));
	cr_assert(payload_match(R("byte_test:1,&,0x01,0;"), "A"));
	cr_assert(!payload_match(R("byte_test:1,&,0x02,0;"), "A"));
	cr_assert(payload_match(R("byte_test:1,^,0x40,0;"), "A"));
	cr_assert(payload_match(R("byte_test:1,!=,0x42,0;"), "A"));
	cr_assert(!payload_match(R("byte_test:1,!=,0x41,0;"), "A"));
	cr_assert(payload_match(R("byte_test:1,!,0x42,0;"), "A"));
	cr_assert(payload_match(R("byte_test:1,=,0xf,0,bitmask 0xf0;"), "\xf3"));
	/* 2 bytes at offset 2 of 4 fit; at offset 3 they do not */
	cr_assert(payload_match(R("byte_test:2,>,0,2;"), "abcd"));
	cr_assert(!payload_match(R("byte_test:2,>,0,3;"), "abcd"));
	cr_assert(payload_match(R("byte_test:8,=,0x0102030405060708,0;"),
				"\x01\x02\x03\x04\x05\x06\x07\x08"));
}

Test(payload, byte_test_strings_and_relative)
{
	cr_assert(payload_match(R("byte_test:3,>,100,0,string,dec;"), "123"));
	cr_assert(!payload_match(R("byte_test:3,>,100,0,string,dec;"), "099"));
	cr_assert(!payload_match(R("byte_test:3,>,0,0,string,dec;"), "abc"), "not a number");
	cr_assert(payload_match(R("byte_test:2,=,255,0,string,hex;"), "ff"));
	cr_assert(payload_match(R("byte_test:3,=,8,0,string,oct;"), "010"));
	cr_assert(payload_match(R("content:\"len=\"; byte_test:2,=,42,0,relative,string,dec;"),
				"len=42"));
	cr_assert(!payload_match(R("content:\"len=\"; byte_test:2,=,42,1,relative,string,dec;"),
				 "len=42"));
	cr_assert(payload_match(R("content:\"len=\"; byte_test:2,=,42,-6,relative,string,dec;"),
				"42len="));
}

Test(payload, byte_jump_chains)
{
	/* read 1 byte (3), jump from after it: lands on 'X' */
	cr_assert(payload_match(R("byte_jump:1,0; content:\"X\"; within:1;"), "\x03"
									      "abcX"));
	cr_assert(!payload_match(R("byte_jump:1,0; content:\"X\"; within:1;"), "\x02"
									       "abcX"));
	/* two jumps in a chain */
	cr_assert(payload_match(
		R("byte_jump:1,0; byte_jump:1,0,relative; content:\"Z\"; within:1;"), "\x01"
										      "a\x01"
										      "bZ"));
	/* landing exactly on the end matches (as Suricata 7.0.2 on), past it fails */
	cr_assert(payload_match(R("byte_jump:1,0;"), "\x02"
						     "ab"));
	cr_assert(!payload_match(R("byte_jump:1,0;"), "\x03"
						      "ab"));
	cr_assert(payload_match(R("byte_jump:1,0;"), "\x02"
						     "abc"));
	cr_assert(payload_match(R("byte_jump:1,0,multiplier 2; content:\"Q\"; within:1;"),
				"\x02"
				"abcdQ"));
	/* 1 rounds up to 4, counted from after the byte read */
	cr_assert(payload_match(R("byte_jump:1,0,align; content:\"Q\"; within:1;"), "\x01"
										    "abcdQ"));
	cr_assert(!payload_match(R("byte_jump:1,0,align; content:\"Q\"; within:1;"), "\x01"
										     "aQcdx"));
	cr_assert(payload_match(R("byte_jump:1,0,from_beginning; content:\"Q\"; within:1;"), "\x02"
											     "aQ"));
	cr_assert(payload_match_at(
		R("byte_jump:1,0,from_end,post_offset -2; content:\"QR\"; within:2;"),
		"\x00"
		"abQR",
		5, 0, 0));
	cr_assert(payload_match(R("byte_jump:2,0,string,dec; content:\"!\"; within:1;"), "03abc!"));
	cr_assert(payload_match(
		R("content:\"len\"; byte_jump:1,0,relative; content:\"end\"; within:3;"),
		"xxlen\x02"
		"..end"));
}

/* Every documented byte_jump form, at the edges of the buffer. */
Test(payload, byte_jump_post_offset_negative)
{
	/* 3 forward from after the byte, then 2 back: lands on 'B' */
	cr_assert(payload_match(R("byte_jump:1,0,post_offset -2; content:\"B\"; within:1;"),
				"\x03"
				"aBcd"));
	cr_assert(!payload_match(R("byte_jump:1,0,post_offset -2; content:\"c\"; within:1;"),
				 "\x03"
				 "aBcd"));
	/* relative to a content, back before the content itself */
	cr_assert(payload_match_at(
		R("content:\"LEN\"; byte_jump:1,0,relative,post_offset -6; content:\"hd\"; within:2;"),
		"hdLEN\x00"
		"xyz",
		9, 0, 0));
}

Test(payload, byte_jump_before_buffer_start_clamps)
{
	/* as Suricata (7.0.2 on): a jump before the start lands on the first byte */
	cr_assert(payload_match(R("byte_jump:1,1,post_offset -100; content:\"A\"; within:1;"),
				"A\x01"
				"bc"));
	cr_assert(!payload_match(R("byte_jump:1,1,post_offset -100; content:\"b\"; within:1;"),
				 "x\x01"
				 "bc"));
	cr_assert(payload_match(R("byte_jump:1,1,from_end,post_offset -100; content:\"Z\"; "
				  "within:1;"),
				"Z\x05"));
	cr_assert(payload_match(
			  R("byte_jump:1,1,from_beginning,post_offset -9; isdataat:!1,relative; "
			    "content:\"q\"; depth:1;"),
			  "q\x02") == 0,
		  "clamped to 0: data is there");
}

Test(payload, byte_jump_to_and_past_the_end)
{
	/* to the end: matches, and a negated isdataat after it holds */
	cr_assert(payload_match(R("byte_jump:1,0; isdataat:!1,relative;"), "\x02"
									   "ab"));
	/* past the end: no match */
	cr_assert(!payload_match(R("byte_jump:1,0;"), "\x09"
						      "ab"));
	cr_assert(!payload_match(R("byte_jump:1,0,from_end;"), "\x01"
							       "ab"));
	cr_assert(payload_match_at(R("byte_jump:1,0,from_end; isdataat:!1,relative;"),
				   "\x00"
				   "ab",
				   3, 0, 0));
	/* a relative content after a jump to the end finds nothing */
	cr_assert(!payload_match(R("byte_jump:1,0; content:\"b\"; distance:0;"), "\x02"
										 "ab"));
}

Test(payload, byte_jump_from_beginning_from_end)
{
	/* from_beginning: the value counts from byte 0, not from after the bytes read */
	cr_assert(payload_match(R("content:\"N\"; byte_jump:1,0,relative,from_beginning; "
				  "content:\"T\"; within:1;"),
				"aTxN\x01"));
	/* from_end: from the end of the buffer; with 0 bytes read, as Suricata's example */
	cr_assert(payload_match(R("byte_jump:0,0,from_end,post_offset -4; content:\"l33t\"; "
				  "distance:0; within:4;"),
				"xxxxl33t"));
	cr_assert(!payload_match(R("byte_jump:0,0,from_end,post_offset -4; content:\"l33t\"; "
				   "distance:0; within:4;"),
				 "xxxl33tx"));
	/* 0 bytes without from_*: no move from the cursor */
	cr_assert(payload_match(
		R("content:\"ab\"; byte_jump:0,0,relative; content:\"c\"; within:1;"), "abc"));
}

Test(payload, byte_jump_multiplier_align_relative)
{
	/* 2 * 3 = 6 after the byte */
	cr_assert(payload_match(R("byte_jump:1,0,multiplier 3; content:\"M\"; within:1;"),
				"\x02"
				"abcdefM"));
	/* align after multiplier: 1 * 2 = 2, rounded up to 4 */
	cr_assert(payload_match(R("byte_jump:1,0,multiplier 2,align; content:\"M\"; within:1;"),
				"\x01"
				"abcdM"));
	/* relative with an offset from the previous match; little endian */
	cr_assert(payload_match_at(R("content:\"H\"; byte_jump:2,1,relative,little; "
				     "content:\"E\"; within:1;"),
				   "H.\x01\x00xE", 6, 0, 0));
	/* bitmask before the multiplier, shifted by its trailing zeros */
	cr_assert(payload_match(R("byte_jump:1,0,bitmask 0xf0; content:\"K\"; within:1;"), "\x2f"
											   "abK"));
	/* a string in hex */
	cr_assert(payload_match(R("byte_jump:2,0,string,hex; content:\"!\"; within:1;"),
				"0a0123456789!"));
}

Test(payload, byte_extract_variables)
{
	cr_assert(payload_match(R("byte_extract:1,0,off; content:\"X\"; distance:off; within:1;"),
				"\x02"
				"abX"));
	cr_assert(!payload_match(R("byte_extract:1,0,off; content:\"X\"; distance:off; within:1;"),
				 "\x01"
				 "abX"));
	cr_assert(payload_match(R("byte_extract:1,0,v; byte_test:1,=,v,1;"), "\x05\x05"));
	cr_assert(!payload_match(R("byte_extract:1,0,v; byte_test:1,=,v,1;"), "\x05\x06"));
	cr_assert(payload_match(R("byte_extract:1,0,n; isdataat:n,relative;"), "\x03"
									       "abc"));
	cr_assert(!payload_match(R("byte_extract:1,0,n; isdataat:n,relative;"), "\x04"
										"abc"));
	cr_assert(payload_match(R("byte_extract:1,0,d; content:\"K\"; offset:1; depth:d;"), "\x03"
											    "abK"));
	cr_assert(!payload_match(R("byte_extract:1,0,d; content:\"K\"; offset:1; depth:d;"),
				 "\x02"
				 "abK"));
	cr_assert(payload_match(R("byte_extract:1,0,v,multiplier 3; byte_test:1,=,v,1;"),
				"\x02\x06"));
	cr_assert(payload_match(R("byte_extract:1,0,v,align 4; byte_test:1,=,v,1;"), "\x05\x08"));
	cr_assert(payload_match(R("byte_extract:2,0,v,string,dec; byte_test:1,=,v,2;"), "65A"));
}
