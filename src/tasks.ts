// Every task registry of the program (lib/tasks.ts): what a worker of the pool
// serves (platform/worker-entry.ts) and what the pool runs inline when it has
// no workers: the log store's, and the metrics store's push decoding (remote write and OTLP).
import { pushTasks } from "./apps/logstore/core/push-tasks.ts";
import { logTasks } from "./apps/logstore/core/scan-tasks.ts";
import { otlpMetricsTasks } from "./apps/metrics/core/otlp-decode.ts";
import { metricsPushTasks } from "./apps/metrics/core/push-decode.ts";
import { selftestTasks } from "./lib/selftest-tasks.ts";
import type { TaskFn } from "./lib/tasks.ts";

export const allTasks: Record<string, TaskFn> = { ...selftestTasks, ...logTasks, ...pushTasks, ...metricsPushTasks, ...otlpMetricsTasks };
