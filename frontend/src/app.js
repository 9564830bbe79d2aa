// App shell behaviour shared by every page. Each feature is a small module that does nothing
// on pages without its elements.
import { startJobPolling } from "./jobs.js";
import { checkJsonFields } from "./catalog.js";
import { startWizard } from "./wizard.js";

startJobPolling(document);
checkJsonFields(document);
startWizard(document);
