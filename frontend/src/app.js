// App shell behaviour shared by every page. Each feature is a small module that does nothing
// on pages without its elements.
import { startActions } from "./actions.js";
import { startJobPolling } from "./jobs.js";
import { checkJsonFields } from "./catalog.js";
import { startWizard } from "./wizard.js";

startActions(document);
startJobPolling(document);
checkJsonFields(document);
startWizard(document);
