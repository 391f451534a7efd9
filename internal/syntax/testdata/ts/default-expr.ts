const app = createApp();
export default app;
