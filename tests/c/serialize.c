/* wasm_module_serialize / wasm_module_deserialize: the bytes of a compiled
   module turn back into a working module, in the same store or another,
   after the original is gone; damaged bytes give NULL. The bytes are
   cranewasm's compiled-code file (machine code and metadata, magic
   "\0cwasm\r\n", checksummed), which loads without compiling, the file
   `iwasm compile` writes and wasm_runtime_load takes as an AOT file.

   WAMR built as an interpreter (the default) fails: it only serializes in
   its eager-JIT build; otherwise wasm_module_serialize logs an error and
   produces nothing. ABI.md: every declared function "does what its name
   says". */
#include "common.h"

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store, *other;
    wasm_module_t *module, *again, *elsewhere;
    wasm_byte_vec_t bytes;
    size_t cuts[4];
    size_t i;

    test_init(argc, argv, "serialize");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    other = wasm_store_new(engine);
    module = compile_module(store, "counter");
    counter_roundtrip(store, module, 5);

    wasm_byte_vec_new_empty(&bytes);
    wasm_module_serialize(module, &bytes);
    CHECK(bytes.data != NULL && bytes.num_elems > 0,
          "wasm_module_serialize produced no bytes");
    CHECK(bytes.size >= bytes.num_elems, "size %zu < num_elems %zu",
          bytes.size, bytes.num_elems);
    CHECK(bytes.num_elems > 8 && memcmp(bytes.data, "\0cwasm\r\n", 8) == 0,
          "the compiled-code file, not the module's binary");

    /* The original goes away first: the bytes stand alone. */
    wasm_module_delete(module);

    again = wasm_module_deserialize(store, &bytes);
    CHECK(again != NULL, "deserialize into the same store");
    counter_roundtrip(store, again, 7);
    elsewhere = wasm_module_deserialize(other, &bytes);
    CHECK(elsewhere != NULL, "deserialize into another store");
    counter_roundtrip(other, elsewhere, -3);

    /* The deserialized module reflects like the original. */
    {
        wasm_exporttype_vec_t ex;
        wasm_importtype_vec_t im;
        wasm_module_exports(again, &ex);
        wasm_module_imports(again, &im);
        CHECK_EQ_INT(ex.num_elems, 3, "exports of the deserialized module");
        CHECK_EQ_INT(im.num_elems, 1, "imports of the deserialized module");
        check_runtime_name(wasm_importtype_name(im.data[0]), "tick",
                           "import name");
        check_runtime_name(wasm_exporttype_name(ex.data[1]), "bump",
                           "export name");
        wasm_exporttype_vec_delete(&ex);
        wasm_importtype_vec_delete(&im);
    }

    /* It serializes again to something that also works. */
    {
        wasm_byte_vec_t twice;
        wasm_module_t *third;
        wasm_byte_vec_new_empty(&twice);
        wasm_module_serialize(again, &twice);
        CHECK(twice.num_elems > 0, "serialize a deserialized module");
        third = wasm_module_deserialize(store, &twice);
        CHECK(third != NULL, "deserialize the second serialization");
        counter_roundtrip(store, third, 11);
        wasm_module_delete(third);
        wasm_byte_vec_delete(&twice);
    }

    /* Truncated bytes are rejected. */
    cuts[0] = 0;
    cuts[1] = 8 < bytes.num_elems ? 8 : 1;
    cuts[2] = bytes.num_elems / 2;
    cuts[3] = bytes.num_elems - 1;
    for (i = 0; i < 4; i++) {
        wasm_byte_vec_t cut;
        wasm_module_t *m;
        if (cuts[i])
            wasm_byte_vec_new(&cut, cuts[i], bytes.data);
        else
            wasm_byte_vec_new_empty(&cut);
        m = wasm_module_deserialize(store, &cut);
        CHECK(m == NULL, "deserialize accepted %zu of %zu bytes", cuts[i],
              bytes.num_elems);
        wasm_byte_vec_delete(&cut);
    }
    {
        /* One flipped bit in the middle: the checksum refuses it. */
        wasm_byte_vec_t damaged;
        wasm_byte_vec_new(&damaged, bytes.num_elems, bytes.data);
        damaged.data[damaged.num_elems / 2] ^= 1;
        CHECK(wasm_module_deserialize(store, &damaged) == NULL,
              "deserialize accepted damaged bytes");
        wasm_byte_vec_delete(&damaged);
    }
    {
        wasm_byte_vec_t junk;
        wasm_name_new_from_string(&junk, "certainly not a module");
        CHECK(wasm_module_deserialize(store, &junk) == NULL,
              "deserialize accepted junk");
        wasm_byte_vec_delete(&junk);
    }
    counter_roundtrip(store, again, 1);

    wasm_byte_vec_delete(&bytes);
    wasm_module_delete(again);
    wasm_module_delete(elsewhere);
    wasm_store_delete(other);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
