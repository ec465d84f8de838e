#!/usr/bin/python3
"""Counts the colours of a PNG screenshot, for the HTML report's headless-Chromium test.

usage: png_colors.py FILE [RRGGBB ...]
prints: WIDTH HEIGHT DISTINCT_COLOURS NON_WHITE_PIXELS, then one line "RRGGBB COUNT" per colour asked.

Decodes what Chromium writes: 8-bit RGB or RGBA, not interlaced (PNG spec, sections 6 and 9: the
IDAT stream is zlib data of scanlines, each led by a filter byte 0-4). Standard library and
numpy (a test dependency already: python3-numpy).
"""
import struct
import sys
import zlib

import numpy


def fail(message):
    sys.stderr.write(f"png_colors.py: {message}\n")
    sys.exit(2)


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path}: not a PNG file")
    pos, idat, header = 8, b"", None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    if header is None:
        fail(f"{path}: no IHDR chunk")
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in (2, 6) or interlace != 0:
        fail(f"{path}: bit depth {depth}, colour type {colour_type}, interlace {interlace}; "
             "allowed: 8-bit RGB (2) or RGBA (6), not interlaced")
    bpp = 3 if colour_type == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    if len(raw) != height * (stride + 1):
        fail(f"{path}: {len(raw)} bytes of scanlines; expected {height * (stride + 1)}")
    image = numpy.zeros((height, stride), dtype=numpy.uint8)
    previous = numpy.zeros(stride, dtype=numpy.uint8)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = numpy.frombuffer(raw, dtype=numpy.uint8, count=stride, offset=y * (stride + 1) + 1)
        if kind == 0:  # None
            out = line.copy()
        elif kind == 1:  # Sub: running sum along each channel, mod 256
            out = (numpy.cumsum(line.reshape(width, bpp), axis=0, dtype=numpy.uint64) % 256)
            out = out.astype(numpy.uint8).reshape(stride)
        elif kind == 2:  # Up
            out = line + previous  # uint8 wraps mod 256
        elif kind in (3, 4):  # Average, Paeth: each byte depends on the one before
            cur, up = line.tolist(), previous.tolist()
            for i in range(stride):
                a = cur[i - bpp] if i >= bpp else 0
                b = up[i]
                if kind == 3:
                    cur[i] = (cur[i] + (a + b) // 2) & 0xFF
                else:
                    c = up[i - bpp] if i >= bpp else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 0xFF
            out = numpy.array(cur, dtype=numpy.uint8)
        else:
            fail(f"{path}: scanline {y} has filter type {kind}; allowed: 0 to 4")
        image[y] = out
        previous = out
    return width, height, image.reshape(height, width, bpp)[:, :, :3]


def main():
    if len(sys.argv) < 2:
        fail("usage: png_colors.py FILE [RRGGBB ...]")
    width, height, rgb = decode(sys.argv[1])
    packed = (rgb[:, :, 0].astype(numpy.uint32) << 16) | (rgb[:, :, 1].astype(numpy.uint32) << 8) | rgb[:, :, 2]
    colours, counts = numpy.unique(packed, return_counts=True)
    count_of = dict(zip(colours.tolist(), counts.tolist()))
    print(width, height, len(colours), width * height - count_of.get(0xFFFFFF, 0))
    for colour in sys.argv[2:]:
        print(colour, count_of.get(int(colour, 16), 0))


if __name__ == "__main__":
    main()
