/** The browser the integration tests use: the same discovery as the CLI, so CI needs no extra set-up. */
import { requireBrowser } from '../../src/engine/browser/find-browser.js';

export const executablePath = requireBrowser().executablePath;
