/* Wine 8 (Debian 12's) has no bcryptprimitives.dll, whose ProcessPrng
   Rust's std calls for random bytes on Windows. This stands in for it,
   under Wine only (scripts/test-windows.sh puts it beside thehook.exe); it
   is never shipped. ProcessPrng never fails on Windows; RtlGenRandom
   (advapi32's SystemFunction036) gives the same kind of bytes. */
#include <windows.h>

__declspec(dllimport) BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}
