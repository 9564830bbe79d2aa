// App shell behaviour shared by every page. Each feature is a small module.
import { startJobPolling } from "./jobs.js";

startJobPolling(document);
