export default class Controller {
  handle(): void {}
}
