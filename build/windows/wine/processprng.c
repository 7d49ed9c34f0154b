/*
 * bcryptprimitives.dll for Wine 8, which lacks it: Go's Windows runtime (Go 1.22 and
 * later) takes its random numbers from ProcessPrng in this DLL and stops at start-up
 * without it. This stand-in exports ProcessPrng on top of RtlGenRandom (advapi32's
 * SystemFunction036), which Wine has. It is built from this source when the Windows
 * tests run (run.sh) and only ever copied into their throw-away Wine prefix.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x7fffffff ? 0x7fffffff : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
