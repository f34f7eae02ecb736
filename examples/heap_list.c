// Safe: builds a three-element list on the heap and checks its sum.
#include <stdlib.h>
extern void reach_error(void);

struct node { int value; struct node *next; };

int main(void) {
  struct node *head = NULL;
  for (int i = 1; i <= 3; i++) {
    struct node *n = malloc(sizeof *n);
    n->value = i;
    n->next = head;
    head = n;
  }
  int sum = 0;
  for (struct node *p = head; p; p = p->next) sum += p->value;
  if (sum != 6) reach_error();
  return 0;
}
