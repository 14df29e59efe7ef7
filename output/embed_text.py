#!/usr/bin/env python3
"""Turns a text file into a C byte array (a string literal that long is beyond ISO C's limits):
embed_text.py INPUT OUTPUT NAME defines `const unsigned char NAME[]` (NUL-terminated) and `const size_t NAME_size`."""
import sys

src, dst, name = sys.argv[1], sys.argv[2], sys.argv[3]
data = open(src, "rb").read()
with open(dst, "w") as f:
    f.write(f"/* generated from {src.split('/')[-1]} by embed_text.py: do not edit */\n#include <stddef.h>\n\n")
    f.write(f"extern const unsigned char {name}[];\nextern const size_t {name}_size;\n")
    f.write(f"const unsigned char {name}[] = {{\n")
    for i in range(0, len(data), 16):
        f.write("".join(f"{b}," for b in data[i:i + 16]) + "\n")
    f.write(f"0}};\nconst size_t {name}_size = {len(data)};\n")
