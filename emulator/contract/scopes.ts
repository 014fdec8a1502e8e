/**
 * The scope the account calls (`/auth/v1/user/*`) require of a bearer token: the site's own screens ask for it
 * (product §6). A token without it, such as the partner service's (which asks for no scope), gets 403
 * `insufficient_scope` there.
 */
export const accountScope = "user.write";
