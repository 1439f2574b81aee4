// SPDX-License-Identifier: GPL-2.0-only
/* JSON string escaping for every EVE writer (json.h). */
#include <errno.h>
#include <string.h>
#include "json.h"

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when invalid. */
static size_t utf8_len(const uint8_t *s, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

int mk_json_escape(char *out, size_t size, const uint8_t *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, i = 0;

	while (i < len) {
		uint8_t c = s[i];
		size_t u;
		char esc = 0;

		switch (c) {
		case '"':
			esc = '"';
			break;
		case '\\':
			esc = '\\';
			break;
		case '\n':
			esc = 'n';
			break;
		case '\r':
			esc = 'r';
			break;
		case '\t':
			esc = 't';
			break;
		case '\b':
			esc = 'b';
			break;
		case '\f':
			esc = 'f';
			break;
		default:
			break;
		}
		if (esc) {
			if (o + 2 > size)
				return -ENOSPC;
			out[o++] = '\\';
			out[o++] = esc;
			i++;
			continue;
		}
		if (c >= 0x20 && c < 0x80) {
			if (o + 1 > size)
				return -ENOSPC;
			out[o++] = (char)c;
			i++;
			continue;
		}
		u = c >= 0x80 ? utf8_len(s + i, len - i) : 0;
		if (u) {
			if (o + u > size)
				return -ENOSPC;
			memcpy(out + o, s + i, u);
			o += u;
			i += u;
			continue;
		}
		if (o + 6 > size)
			return -ENOSPC;
		out[o++] = '\\';
		out[o++] = 'u';
		out[o++] = '0';
		out[o++] = '0';
		out[o++] = hex[c >> 4];
		out[o++] = hex[c & 15];
		i++;
	}
	return (int)o;
}
