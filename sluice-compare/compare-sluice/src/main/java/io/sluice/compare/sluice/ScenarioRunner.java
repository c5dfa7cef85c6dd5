package io.sluice.compare.sluice;

import io.sluice.compare.Results;
import java.util.Map;

/**
 * One scenario of the comparison on Sluice. It adds its rows to {@code rows}, a scratch result set
 * that the harness adopts only if the whole scenario succeeds, and header lines to {@code notes}.
 * Runs on the harness thread; throws if any variant fails.
 */
interface ScenarioRunner {
    void run(HarnessContext context, Results rows, Map<String, String> notes) throws Exception;
}
