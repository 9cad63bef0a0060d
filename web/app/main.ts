// The organizer app's script (bundled by src/app/build-app-assets.ts). The pages work without it;
// it only adds what needs a browser's help.
import { setUpCopyButtons } from './copy-buttons.ts';
import { setUpPriceBreakdowns } from './price-breakdown.ts';

setUpCopyButtons();
setUpPriceBreakdowns();
