// What other features may use of tenants: Home's Mintlify connection section and who may change it. Everything
// else in tenants/ is its own.

export { mayManage } from './connect/permission.js';
export { connectionSection } from './connect/view.js';
