/* Loads a Node addon the way Node does (dlopen, RTLD_LAZY) and looks up the napi entry point,
 * without a Node: what can be run here for the musl builds (no musl Node installs here).
 * Usage: dlopen-check <addon.node>; exit 0 when the library loads and exports the symbol. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <addon.node>\n", argv[0]);
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_LAZY | RTLD_LOCAL);
  if (!lib) {
    printf("dlopen failed: %s\n", dlerror());
    return 1;
  }
  void *entry = dlsym(lib, "napi_register_module_v1");
  printf("%s: loaded, napi_register_module_v1 %s\n", argv[1], entry ? "found" : "MISSING");
  return entry ? 0 : 1;
}
