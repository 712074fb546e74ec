"""Run a command where no user namespace can be made, as under Docker's default seccomp profile:
a seccomp filter refuses clone() and unshare() with CLONE_NEWUSER (EPERM) and clone3() (ENOSYS,
so that callers fall back to clone). Usage: python3 no-userns.py command [args...]"""
import ctypes, os, struct, sys

ALLOW, ERRNO = 0x7FFF0000, 0x00050000
CLONE3, CLONE, UNSHARE, CLONE_NEWUSER = 435, 56, 272, 0x10000000  # x86_64
program = [
    (0x20, 0, 0, 0),                  # 0: A = syscall number
    (0x15, 5, 0, CLONE3),             # 1: clone3 -> 7
    (0x15, 1, 0, CLONE),              # 2: clone -> 4
    (0x15, 0, 2, UNSHARE),            # 3: unshare -> 4, else -> 6
    (0x20, 0, 0, 16),                 # 4: A = low word of the first argument (the flags)
    (0x45, 2, 0, CLONE_NEWUSER),      # 5: flags & CLONE_NEWUSER -> 8
    (0x06, 0, 0, ALLOW),              # 6
    (0x06, 0, 0, ERRNO | 38),         # 7: ENOSYS
    (0x06, 0, 0, ERRNO | 1),          # 8: EPERM
]
code = ctypes.create_string_buffer(b''.join(struct.pack('HBBI', *op) for op in program))

class SockFprog(ctypes.Structure):
    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]

libc = ctypes.CDLL(None, use_errno=True)
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
if os.getuid() != 0 and libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
    sys.exit('prctl(NO_NEW_PRIVS): ' + os.strerror(ctypes.get_errno()))
if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(SockFprog(len(program), ctypes.addressof(code))), 0, 0) != 0:
    sys.exit('prctl(SECCOMP): ' + os.strerror(ctypes.get_errno()))
os.execvp(sys.argv[1], sys.argv[1:])
