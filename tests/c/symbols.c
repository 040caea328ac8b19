/* ABI.md: every one of the 284 functions wasm_c_api.h declares, the 173
   of wasm_export.h and the 63 of gc_export.h is exported with default
   visibility (WAMR leaves out
   about 46 of the former), and no other wasm_* symbol leaks from the
   library. The first part references each name
   weakly so a missing one is reported by name instead of failing the link;
   the second reads the library's dynamic symbol table. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Declared without the header: only the addresses matter here. */
#define SYM(name) extern void name(void) __attribute__((weak));
#include "symbols.h"
#include "export_symbols.h"
#include "gc_symbols.h"
#undef SYM

static const struct {
    const char *name;
    void (*addr)(void);
} syms[] = {
#define SYM(name) { #name, name },
#include "symbols.h"
#include "export_symbols.h"
#include "gc_symbols.h"
#undef SYM
};
#define NSYMS (sizeof syms / sizeof syms[0])

static int declared(const char *name)
{
    size_t i;
    /* Declared by the header too, but deprecated and outside the 284 that
       ABI.md requires: exporting it is allowed, not required. */
    if (strcmp(name, "wasm_engine_new_with_args") == 0)
        return 1;
    for (i = 0; i < NSYMS; i++)
        if (strcmp(syms[i].name, name) == 0)
            return 1;
    return 0;
}

/* Lists defined wasm_* symbols of the ELF file at `path` that the header
   does not declare; returns how many. */
static int extra_symbols(const char *path)
{
    int fd = open(path, O_RDONLY), extra = 0;
    struct stat st;
    const unsigned char *base;
    const Elf64_Ehdr *eh;
    const Elf64_Shdr *sh;
    int i;

    if (fd < 0 || fstat(fd, &st) != 0) {
        fprintf(stderr, "FAIL symbols: cannot open %s\n", path);
        exit(1);
    }
    base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        fprintf(stderr, "FAIL symbols: cannot map %s\n", path);
        exit(1);
    }
    eh = (const Elf64_Ehdr *)base;
    sh = (const Elf64_Shdr *)(base + eh->e_shoff);
    for (i = 0; i < eh->e_shnum; i++) {
        const Elf64_Sym *sym;
        const char *strtab;
        size_t n, j;
        if (sh[i].sh_type != SHT_DYNSYM)
            continue;
        sym = (const Elf64_Sym *)(base + sh[i].sh_offset);
        strtab = (const char *)(base + sh[sh[i].sh_link].sh_offset);
        n = sh[i].sh_size / sizeof(Elf64_Sym);
        for (j = 0; j < n; j++) {
            const char *name = strtab + sym[j].st_name;
            int bind = ELF64_ST_BIND(sym[j].st_info);
            if (sym[j].st_shndx == SHN_UNDEF ||
                (bind != STB_GLOBAL && bind != STB_WEAK) ||
                strncmp(name, "wasm_", 5) != 0 || declared(name))
                continue;
            if (extra < 20)
                fprintf(stderr, "  exported but not in the header: %s\n",
                        name);
            extra++;
        }
    }
    munmap((void *)base, (size_t)st.st_size);
    return extra;
}

int main(void)
{
    size_t i, missing = 0;
    Dl_info info;
    void (*probe)(void) = NULL;
    int extra;

    for (i = 0; i < NSYMS; i++) {
        if (!syms[i].addr) {
            fprintf(stderr, "  missing: %s\n", syms[i].name);
            missing++;
        } else if (!probe) {
            probe = syms[i].addr;
        }
    }
    printf("%zu of %zu declared functions exported\n", NSYMS - missing,
           NSYMS);
    if (!probe || !dladdr((void *)probe, &info) || !info.dli_fname) {
        fprintf(stderr, "FAIL symbols: cannot find the library\n");
        return 1;
    }
    extra = extra_symbols(info.dli_fname);
    printf("%d other wasm_* symbols exported by %s\n", extra, info.dli_fname);
    if (missing || extra) {
        fprintf(stderr, "FAIL symbols: %zu declared functions missing, %d "
                "undeclared wasm_* symbols exported\n", missing, extra);
        return 1;
    }
    printf("PASS symbols\n");
    return 0;
}
