/*
 * Kafka Uuid text form (org.apache.kafka.common.Uuid): base64url without padding of the
 * 16 bytes msb||lsb, big-endian, 22 characters. docs/kafka-format.md §6.3.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt/names.h"

static const char b64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static int b64url_val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '-')
		return 62;
	if (c == '_')
		return 63;
	return -1;
}

/*
 * Uuid.fromString accepts what java.util.Base64's URL decoder accepts for 16 bytes: the
 * 22-character unpadded form, or the same followed by "==" (24 characters, Kafka's own
 * length limit). Like the Java decoder, the 4 unused low bits of the last character are
 * not required to be zero. The all-zero Uuid parses fine; refusing it is the caller's
 * business (partition.metadata does, segment ids do not).
 */
int ss_uuid_parse(const char *s, size_t len, uint8_t out[16])
{
	uint8_t tmp[16];
	uint32_t acc = 0;
	unsigned bits = 0;
	size_t o = 0;

	if (!s)
		return -EINVAL;
	if (len == 24) {
		if (s[22] != '=' || s[23] != '=')
			return -EINVAL;
		len = 22;
	}
	if (len != 22)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		int v = b64url_val((unsigned char)s[i]);
		if (v < 0)
			return -EINVAL;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o < sizeof(tmp))
				tmp[o++] = (uint8_t)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	if (o != sizeof(tmp))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(tmp); i++)
		out[i] = tmp[i];
	return 0;
}

void ss_uuid_format(const uint8_t id[16], char out[23])
{
	size_t o = 0;
	size_t i = 0;

	for (; i + 3 <= 15; i += 3) {
		uint32_t v = (uint32_t)id[i] << 16 | (uint32_t)id[i + 1] << 8 | id[i + 2];
		out[o++] = b64url[(v >> 18) & 63];
		out[o++] = b64url[(v >> 12) & 63];
		out[o++] = b64url[(v >> 6) & 63];
		out[o++] = b64url[v & 63];
	}
	/* 15 bytes done in 20 characters; the 16th byte needs two more. */
	out[o++] = b64url[id[15] >> 2];
	out[o++] = b64url[(id[15] & 3) << 4];
	out[o] = '\0';
}
