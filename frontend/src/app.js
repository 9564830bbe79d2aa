// App shell behaviour shared by every page. Each feature is a small module.
import { startJobPolling } from "./jobs.js";
import { checkJsonFields } from "./catalog.js";

startJobPolling(document);
checkJsonFields(document);
