/**
 * A browser that runs the island script says so with this cookie (`__Host-js=1`, not secret): the worker then
 * streams a page's late parts behind a spinner, which only a running script swaps in. Without it the worker waits
 * and sends the page complete, so a browser without JavaScript never gets hidden content (product §2 MFASetupTOTP).
 */
export const SCRIPT_MARKER_COOKIE = "js";

/** An hour: every page with an island renews it, and a browser that turns JavaScript off soon stops claiming it. */
export const SCRIPT_MARKER_MAX_AGE_SECONDS = 60 * 60;
