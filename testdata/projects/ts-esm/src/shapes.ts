export interface Shape {
  area(): number;
}

export class Circle implements Shape {
  constructor(readonly radius: number) {}

  area(): number {
    return Math.PI * this.radius * this.radius;
  }
}

export class Square implements Shape {
  constructor(readonly side: number) {}

  area(): number {
    return this.side * this.side;
  }
}
