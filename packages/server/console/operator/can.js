// What the signed-in operator's role may do, so a page hides what the server would refuse anyway (the server
// enforces the roles; this only spares the operator a button that cannot work).
export const RANK = { viewer: 0, finance: 1, admin: 2 };

/** Whether the session's operator holds `role` or a higher one. */
export const can = (session, role) => RANK[session.operator.role] >= RANK[role];
