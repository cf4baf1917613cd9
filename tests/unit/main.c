/*
 * main.c - the CUnit runner for every unit-test file in tests/unit/.
 *
 * Each test file defines one `void suite_<module>(void)` that adds its suite
 * to the registry. Suites are declared weak here so a module's tests are
 * picked up as soon as its file exists; the runner fails if no suite ran.
 */
#include <CUnit/Basic.h>
#include <stdio.h>

#define SUITES(X) \
	X(ytree) X(scn) X(topo) X(bar) X(import_topom) X(import_lspci) \
	X(sim_queue) X(sim_flow) X(sim_engine) X(sim_solvers) X(xfer) X(coll) X(meas) X(meas_csv) X(llm) X(llm_ops) X(step) X(serve) X(disagg) X(predict) X(bench) X(calib) X(calib_file) X(render) X(render_chart) X(sweep) X(valid) X(guest) X(out) X(hfconfig) X(usercat) X(jout) X(net) X(scale) X(engines) X(calib_prior) X(cost) X(report) X(rccl) X(import_rocmsmi) X(import_amd) X(closed) X(grid)

#define DECL(name) void suite_##name(void) __attribute__((weak));
SUITES(DECL)
#undef DECL

int main(void)
{
	unsigned fails;
	int nsuites = 0;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 5;
#define ADD(name) if (suite_##name) { suite_##name(); nsuites++; }
	SUITES(ADD)
#undef ADD
	if (nsuites == 0) {
		fprintf(stderr, "unit-tests: no suite registered\n");
		CU_cleanup_registry();
		return 1;
	}
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return fails ? 1 : 0;
}
