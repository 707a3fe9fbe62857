/* false - fail, doing nothing. */
int main(void)
{
    return 1;
}
