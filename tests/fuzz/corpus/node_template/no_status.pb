

abc