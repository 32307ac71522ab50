// PNG: signature, IHDR, one IDAT of zlib data (each row prefixed with filter 0), IEND;
// every chunk closed by the CRC-32 of its type and data (PNG specification, 2nd ed., 5.3).
#include "png.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static bool write_chunk(FILE *f, const char *type, const uint8_t *data, uint32_t len)
{
    uint8_t head[8];
    put32(head, len);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(0L, (const Bytef *)type, 4);
    if (len)
        crc = crc32(crc, data, len);
    uint8_t tail[4];
    put32(tail, (uint32_t)crc);
    return fwrite(head, 1, 8, f) == 8 && (len == 0 || fwrite(data, 1, len, f) == len) && fwrite(tail, 1, 4, f) == 4;
}

bool png_write_rgb(const char *path, const uint8_t *rgb, int width, int height, int pitch)
{
    size_t row = (size_t)width * 3 + 1;
    size_t raw_size = row * (size_t)height;
    uint8_t *raw = malloc(raw_size);
    uLongf packed_size = compressBound((uLong)raw_size);
    uint8_t *packed = malloc(packed_size);
    bool ok = raw && packed;
    if (ok) {
        for (int y = 0; y < height; ++y) {
            raw[row * (size_t)y] = 0; // filter: none
            memcpy(raw + row * (size_t)y + 1, rgb + (size_t)pitch * (size_t)y, (size_t)width * 3);
        }
        ok = compress2(packed, &packed_size, raw, (uLong)raw_size, 6) == Z_OK;
    }
    FILE *f = ok ? fopen(path, "wb") : NULL;
    if (f) {
        static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
        uint8_t ihdr[13];
        put32(ihdr, (uint32_t)width);
        put32(ihdr + 4, (uint32_t)height);
        ihdr[8] = 8;  // bit depth
        ihdr[9] = 2;  // colour type: RGB
        ihdr[10] = ihdr[11] = ihdr[12] = 0;
        ok = fwrite(signature, 1, 8, f) == 8 && write_chunk(f, "IHDR", ihdr, 13) &&
             write_chunk(f, "IDAT", packed, (uint32_t)packed_size) && write_chunk(f, "IEND", NULL, 0);
        ok = fclose(f) == 0 && ok;
    } else {
        ok = false;
    }
    free(raw);
    free(packed);
    return ok;
}
