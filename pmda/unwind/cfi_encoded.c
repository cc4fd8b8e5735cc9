/*
 * cfi_encoded.c - the DW_EH_PE pointer encodings of .eh_frame and
 * .eh_frame_hdr (LSB, "Exception Frames").  libdw reads them too but keeps
 * its reader private; we need it to learn each FDE's range.
 */
#include <dwarf.h>
#include <string.h>
#include "cfi_internal.h"

/* Little-endian unsigned of n bytes; the caller checked the bounds. */
static uint64_t
read_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = (v << 8) | p[i];
	return v;
}

static bool
read_leb128(const struct cfi_bytes *b, size_t *pos, bool sign, uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0;
	size_t p = *pos;
	uint8_t byte;

	do {
		if (p >= b->size || shift >= 64)
			return false;
		byte = b->buf[p++];
		v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	} while (byte & 0x80);
	if (sign && shift < 64 && (byte & 0x40))
		v |= ~(uint64_t)0 << shift;
	*pos = p;
	*out = v;
	return true;
}

/* The value part (low nibble) of enc, sign-extended where it is signed. */
static bool
read_value(const struct cfi_bytes *b, uint8_t format, size_t *pos, uint64_t *out)
{
	static const uint8_t width[16] = {
		[DW_EH_PE_absptr] = 8, [DW_EH_PE_udata2] = 2, [DW_EH_PE_udata4] = 4,
		[DW_EH_PE_udata8] = 8, [DW_EH_PE_sdata2] = 2, [DW_EH_PE_sdata4] = 4,
		[DW_EH_PE_sdata8] = 8,
	};
	size_t n = width[format];

	if (format == DW_EH_PE_uleb128 || format == DW_EH_PE_sleb128)
		return read_leb128(b, pos, format == DW_EH_PE_sleb128, out);
	if (n == 0 || *pos > b->size || b->size - *pos < n)
		return false;
	*out = read_le(b->buf + *pos, n);
	if ((format & DW_EH_PE_signed) && n < 8 && (*out >> (8 * n - 1)))
		*out |= ~(uint64_t)0 << (8 * n);
	*pos += n;
	return true;
}

bool
cfi_read_encoded(const struct cfi_bytes *b, uint8_t enc, uint64_t datarel,
		 size_t *pos, uint64_t *out)
{
	size_t p = *pos;
	uint64_t base, v;

	if (enc == DW_EH_PE_omit)
		return false;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		base = 0;
		break;
	case DW_EH_PE_pcrel:
		base = b->vaddr + p;
		break;
	case DW_EH_PE_datarel:
		base = datarel;
		break;
	default:		/* textrel, funcrel, aligned: not on x86-64 */
		return false;
	}
	if (!read_value(b, enc & 0x0f, &p, &v))
		return false;
	*out = base + v;
	*pos = p;
	return true;
}
