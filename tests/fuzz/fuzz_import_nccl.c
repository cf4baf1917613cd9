/*
 * fuzz_import_nccl.c - `plumb import nccl-topo` (io/import_xml.c, libxml2) on
 * any bytes; what imports is written out as scenario YAML.
 */
#include "fuzz.h"

#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct imp_opts o = { "fuzz.xml", NULL, NULL, 0, NULL };
	struct imp_scn *s = imp_scn_new();
	struct plumb_err err;

	if (!s)
		abort();
	if (imp_nccl_parse((const char *)data, size, &o, s, &err) == 0)
		imp_write_yaml(fuzz_sink(), s, "fuzz.yaml", &err);
	imp_scn_free(s);
	return 0;
}
