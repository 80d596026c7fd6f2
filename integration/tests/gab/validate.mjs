// github-action-benchmark's own check of a `customSmallerIsBetter` /
// `customBiggerIsBetter` file: the zod schema of its `src/extract.ts`
// (benchmark-action/github-action-benchmark, commit
// c38cce98215cf75e178ecd5a0c1a1ab215e93006, MIT licence), parsed with the
// zod release its package.json names, and its rule that a file with no
// entry is an error. Prints the entries parsed; exits 1 when invalid.
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const BenchmarkResult = z.object({
    name: z.coerce.string(),
    value: z.coerce.number(),
    range: z.coerce.string().optional(),
    unit: z.coerce.string(),
    extra: z.coerce.string().optional(),
});
const BenchmarkResults = z.array(BenchmarkResult);

try {
    const benches = BenchmarkResults.parse(JSON.parse(readFileSync(process.argv[2], 'utf8')));
    if (benches.length === 0) {
        throw new Error('No benchmark result was found');
    }
    console.log(JSON.stringify(benches));
} catch (err) {
    console.error(`invalid: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
}
