#ifndef PROF_HEAP_SHIM_EXEC_H
#define PROF_HEAP_SHIM_EXEC_H
/*
 * What the heap shim notes when its process calls exec (lib/heap/shim/exec_hooks.c
 * interposes the exec family): the program that is to replace the image,
 * and whether the environment given to it still loads the shim. The
 * post-processor needs both when no record file of a later image appears,
 * to say which program went unprofiled and why (heap/report.h).
 *
 * No allocation and no tracked-heap use: these run in the exec wrappers,
 * possibly in a child of fork that is about to exec. That is why the PATH
 * search is the shim's own and not prof_path_search() (base/proc.h,
 * which allocates; the shim links nothing of libcommon.a).
 */
#include <stddef.h>

/*
 * The absolute path of file as exec will run it, into buf (n bytes):
 * with search, looked up in PATH as execvp does when file has no '/'
 * (PATH unset: /bin:/usr/bin; an empty entry: the current directory);
 * a relative path is prefixed with the current directory. When nothing
 * is found, or buf is too small, file itself (cut to fit). Always
 * NUL-terminates buf (n > 0).
 */
void ph_exec_path(const char *file, int search, char *buf, size_t n);

/*
 * 1 if envp (NULL-terminated; NULL: none) makes a new image load the shim:
 * LD_PRELOAD names libprofheap.so and PROFHEAP_DIR is set, as profheap
 * put them; 0 if a program scrubbed them (env -i, a sanitised exec).
 */
int ph_exec_env_keeps_shim(char *const envp[]);

#endif
