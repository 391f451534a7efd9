import React, { useState } from "react";
import type { FC, ReactNode } from "react";

export interface ButtonProps {
  label: string;
  onClick?: () => void;
  children?: ReactNode;
}

export const Button: FC<ButtonProps> = ({ label, onClick, children }) => {
  const [pressed, setPressed] = useState(false);
  return (
    <button className={pressed ? "on" : "off"} onClick={() => { setPressed(true); onClick?.(); }}>
      {label}
      {children}
    </button>
  );
};

export default function App(): JSX.Element {
  return <Button label="Go" />;
}

class Legacy extends React.Component<ButtonProps> {
  render() {
    return <div>{this.props.label}</div>;
  }
}
