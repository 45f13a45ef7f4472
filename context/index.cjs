// Types only (index.d.ts): the call context is made by the host, never by a program.
"use strict";
module.exports = {};
