/*
 * scripts/code-size.sh: the kit alone (start-up, fault handlers, semihosting console), no
 * library call: the baseline every other image is measured against.
 */
#include "kit.h"

int main(void)
{
    kit_write("syn-kit: empty\n");
    return 0;
}
