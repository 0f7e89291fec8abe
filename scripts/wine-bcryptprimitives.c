/* Test shim for Wine 8 (Debian 12), which lacks bcryptprimitives.dll: Rust's std on Windows
 * takes its random seed from ProcessPrng there (every Windows 10+ has the DLL). This stand-in,
 * put only into the test Wine prefix by scripts/setup-cross.sh --wine, forwards to bcrypt's
 * system RNG. It is never shipped. */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
    if (BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}
