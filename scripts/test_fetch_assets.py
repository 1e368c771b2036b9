#!/usr/bin/env python3
"""Tests of scripts/fetch-assets.py's ONNX Runtime table: every platform's
wheel is downloaded afresh with `pip download --platform`, its sha256 and
its library's are checked, and the library is checked to be a binary for
that platform (so a row with another platform's hashes cannot pass).

    python3 scripts/test_fetch_assets.py
"""
import contextlib
import importlib.util
import io
import pathlib
import shutil
import struct
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("fetch_assets", HERE / "fetch-assets.py")
fetch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fetch)

# npm platform -> (binary format, machine as the format spells it)
EXPECTED_BINARY = {
    "linux-x64-gnu": ("ELF", 0x3E),         # EM_X86_64
    "linux-arm64-gnu": ("ELF", 0xB7),       # EM_AARCH64
    "darwin-arm64": ("Mach-O", 0x0100000C),  # CPU_TYPE_ARM64
    "win32-x64-msvc": ("PE", 0x8664),        # IMAGE_FILE_MACHINE_AMD64
}


def binary_kind(path):
    """(format, machine) read from a shared library's header."""
    with open(path, "rb") as f:
        head = f.read(4096)
    if head[:4] == b"\x7fELF":
        return "ELF", struct.unpack_from("<H", head, 18)[0]
    if head[:4] == b"\xcf\xfa\xed\xfe":  # 64-bit Mach-O, little-endian
        return "Mach-O", struct.unpack_from("<I", head, 4)[0]
    if head[:2] == b"MZ":
        pe = struct.unpack_from("<I", head, 0x3C)[0]
        assert head[pe:pe + 4] == b"PE\0\0", "MZ header without a PE header"
        return "PE", struct.unpack_from("<H", head, pe + 4)[0]
    return "unknown", None


class OrtWheels(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = pathlib.Path(tempfile.mkdtemp(prefix="thehook-wheels-"))
        cls.wheels = cls.tmp / "wheels"
        cls.wheels.mkdir()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_every_platform_has_a_row_and_a_package(self):
        platforms = set(fetch.ORT_PLATFORMS) | set(fetch.ORT_MISSING)
        self.assertEqual(platforms, set(fetch.HOST.values()))
        self.assertEqual(set(fetch.ORT_PLATFORMS), set(EXPECTED_BINARY))
        for p in platforms:
            self.assertTrue((HERE.parent / "npm" / p / "package.json").is_file(), p)

    def test_each_wheel_downloads_for_its_platform_with_the_pinned_hashes(self):
        for target, (fmt, machine) in EXPECTED_BINARY.items():
            with self.subTest(target):
                dest = self.tmp / target
                fetch.fetch_ort(self.wheels, dest, target)
                wheel = self.wheels / fetch.ort_wheel(target)
                self.assertEqual(fetch.sha256(wheel), fetch.ORT_PLATFORMS[target]["wheel_sha256"])
                name = fetch.ORT_PLATFORMS[target]["member"].rsplit("/", 1)[1]
                lib = dest / "onnxruntime" / name
                self.assertEqual(fetch.sha256(lib), fetch.ORT_PLATFORMS[target]["sha256"])
                self.assertEqual(binary_kind(lib), (fmt, machine))
                self.assertIn("MIT License", (dest / "onnxruntime" / "LICENSE").read_text())

    def test_a_wheel_that_does_not_match_its_hash_is_refused(self):
        target = "win32-x64-msvc"
        spoiled = self.tmp / "spoiled"
        spoiled.mkdir()
        fetch.download_ort(self.wheels, target)
        wheel = spoiled / fetch.ort_wheel(target)
        shutil.copy(self.wheels / wheel.name, wheel)
        with open(wheel, "r+b") as f:
            f.seek(1000)
            byte = f.read(1)
            f.seek(1000)
            f.write(bytes([byte[0] ^ 0xFF]))
        with self.assertRaises(SystemExit) as refused:
            fetch.download_ort(spoiled, target)
        self.assertIn("expected " + fetch.ORT_PLATFORMS[target]["wheel_sha256"], str(refused.exception))

    def test_intel_macos_gets_no_runtime_and_is_told_why(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertFalse(fetch.fetch_ort(self.wheels, self.tmp / "x", "darwin-x64"))
        self.assertIn("no Intel macOS wheel since 1.23.2", err.getvalue())
        self.assertFalse((self.tmp / "x" / "onnxruntime").exists())


if __name__ == "__main__":
    sys.exit(unittest.main())
