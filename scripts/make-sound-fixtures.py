#!/usr/bin/env python3
"""Writes the tiny sound-file fixtures in Tests/VolumeKitTests/Fixtures/.

They come from outside VolumeKit's own writer on purpose: Python's `wave` and `aifc` modules, and byte layouts
built here by hand from the specs (shared/facts/system-sounds.md section 4), so the reader is checked against
files it did not produce. Run once; the output is committed. Python 3.11 (aifc/audioop are gone in 3.13).

One fixture is not written here but by SoX 14.4.2 (issue 16: CAF with a pad byte after an odd-sized data chunk):
    sox -n -r 8000 -b 24 -c 1 sox-pcm24-odd-padded.caf synth 0.000875 sine 440
(7 frames of 24-bit mono: a 25-byte 'data' chunk followed by one zero byte, which CAF itself never pads.)
"""
import aifc, math, os, struct, sys, warnings, wave

warnings.simplefilter("ignore", DeprecationWarning)
out = os.path.join(os.path.dirname(__file__), "..", "Tests", "VolumeKitTests", "Fixtures")
os.makedirs(out, exist_ok=True)

def tone(frames, rate, channels, amplitude=0.4):
    data = b""
    for i in range(frames):
        v = int(amplitude * 32767 * math.sin(2 * math.pi * 440 * i / rate))
        data += struct.pack("<h", v) * channels
    return data

# 1. Python's wave module: 16-bit stereo PCM WAV, 441 frames at 44.1 kHz (10 ms).
with wave.open(os.path.join(out, "python-pcm16-stereo.wav"), "wb") as w:
    w.setnchannels(2); w.setsampwidth(2); w.setframerate(44100); w.writeframes(tone(441, 44100, 2))

# 2. Python's aifc module: 8-bit mono AIFF, 220 frames at 22.05 kHz (80-bit rate 40 0D AC 44 ...).
with aifc.open(os.path.join(out, "python-pcm8-mono.aiff"), "wb") as a:
    a.aiff(); a.setnchannels(1); a.setsampwidth(1); a.setframerate(22050)
    a.writeframes(bytes((i * 7) % 256 for i in range(220)))

# 3. Python's aifc module: mu-law AIFF-C (an encoding AudioServices does not play), 100 frames at 8 kHz.
with aifc.open(os.path.join(out, "python-ulaw.aifc"), "wb") as a:
    a.setnchannels(1); a.setsampwidth(2); a.setframerate(8000); a.setcomptype(b"ULAW", b"")
    a.writeframes(tone(100, 8000, 1)[:200])

def caf_chunk(kind, payload):
    return kind + struct.pack(">q", len(payload)) + payload

# 4. By hand: IMA4 CAF, mono 16 kHz, 2 packets (128 frames of room), pakt says 100 valid frames, 28 remainder.
desc = struct.pack(">d4sIIIII", 16000.0, b"ima4", 0, 34, 64, 1, 0)
pakt = struct.pack(">qqii", 2, 100, 0, 28)
packets = (b"\x00\x00" + bytes(range(32))) * 2
with open(os.path.join(out, "handmade-ima4.caf"), "wb") as f:
    f.write(b"caff" + struct.pack(">HH", 1, 0) + caf_chunk(b"desc", desc) + caf_chunk(b"free", b"\0" * 16)
            + caf_chunk(b"pakt", pakt) + caf_chunk(b"data", b"\0\0\0\0" + packets))

# 5. By hand: AAC CAF (variable packets: bytes/packet 0, pakt required) - readable, but not playable.
desc = struct.pack(">d4sIIIII", 44100.0, b"aac ", 0, 0, 1024, 2, 0)
pakt = struct.pack(">qqii", 3, 2900, 2112, 60) + bytes([10, 12, 11])
with open(os.path.join(out, "handmade-aac.caf"), "wb") as f:
    f.write(b"caff" + struct.pack(">HH", 1, 0) + caf_chunk(b"desc", desc) + caf_chunk(b"pakt", pakt)
            + caf_chunk(b"data", b"\0\0\0\1" + b"\xAA" * 33))

def riff_chunk(kind, payload):
    return kind + struct.pack("<I", len(payload)) + payload + (b"\0" if len(payload) % 2 else b"")

# 6. By hand: IMA ADPCM WAV (tag 0x0011), mono 8 kHz, block align 256 -> 505 samples per block,
#    two blocks, 'fact' says 1000 frames.
fmt = struct.pack("<HHIIHHHH", 0x11, 1, 8000, 4055, 256, 4, 2, 505)
body = b"WAVE" + riff_chunk(b"fmt ", fmt) + riff_chunk(b"fact", struct.pack("<I", 1000)) + riff_chunk(b"data", b"\0" * 512)
with open(os.path.join(out, "handmade-ima-adpcm.wav"), "wb") as f:
    f.write(b"RIFF" + struct.pack("<I", len(body)) + body)

# 7. By hand: WAVE_FORMAT_EXTENSIBLE, 24 valid bits in 32-bit containers, stereo 96 kHz, 48 frames,
#    an odd-sized 'LIST' chunk (pad byte) before 'data'.
guid = struct.pack("<H", 1) + bytes([0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71])
fmt = struct.pack("<HHIIHHHHI", 0xFFFE, 2, 96000, 96000 * 8, 8, 32, 22, 24, 3) + guid
body = b"WAVE" + riff_chunk(b"fmt ", fmt) + riff_chunk(b"LIST", b"INFOabc") + riff_chunk(b"data", b"\0" * (48 * 8))
with open(os.path.join(out, "handmade-extensible-24in32.wav"), "wb") as f:
    f.write(b"RIFF" + struct.pack("<I", len(body)) + body)

# 8. By hand: an MP3 that starts with an ID3 tag - a container AudioServices does not take.
with open(os.path.join(out, "id3-tagged.mp3"), "wb") as f:
    f.write(b"ID3\x04\x00\x00\x00\x00\x00\x00" + b"\xFF\xFB\x90\x00" + b"\0" * 16)

print("fixtures written to", os.path.normpath(out))
