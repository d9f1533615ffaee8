/*
 * The small ASCII conversions the text parsers share (configs, NDJSON keys, URLs,
 * directory names): one copy each.
 */
#ifndef SS_COMMON_ASCII_H
#define SS_COMMON_ASCII_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A hex digit's value, or -1. */
static inline int ss_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* s[0..len) as a non-negative int32 written in plain decimal digits (no sign, no
 * space; leading zeros allowed): a partition number, a leader epoch. */
static inline bool ss_dec_u31(const char *s, size_t len, int32_t *out)
{
	int64_t v = 0;
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
		if (v > INT32_MAX)
			return false;
	}
	*out = (int32_t)v;
	return true;
}

#endif
